// Client SDK for user tools: plugin:metrics.
import { call } from "knot:plugin";

export class Client {
  async export(range = "1h") {
    return call("metrics", "export_all", { range });
  }
}

export async function report(range = "1d") {
  const result = await new Client().export(range);
  const total = result.rows.reduce((sum, row) => sum + row.requests, 0);
  return { range, total, rows: result.rows.length };
}
