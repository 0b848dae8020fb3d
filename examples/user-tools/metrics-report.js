// A report over the metrics plugin's client SDK; the export handler is gated by plugin.metrics.export.
import { report } from "plugin:metrics";
import { returnObject, getString } from "knot:tool";

export default async function main() {
  const range = getString("range", "1d");
  const summary = await report(range);
  console.log(`computed ${summary.rows} rows`);
  returnObject({ ...summary, summary: `total ${summary.total} over ${range}` });
}
