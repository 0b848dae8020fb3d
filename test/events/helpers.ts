/** The `shop` plugin (emits a declared event; records what sinks tell it) and a recording sink, for sink tests. */
import fs from "node:fs";
import { manifest, writePlugin } from "../helpers/fixtures.ts";

export function writeShop(root: string, marker: string): void {
  writePlugin(root, "shop", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["orders"]
      config = ["marker"]
      [[tool.knot.handlers]]
      handler = "place"
      [[tool.knot.handlers]]
      handler = "record"
      [[tool.knot.handlers]]
      handler = "nap"
      [[tool.knot.events]]
      type = "order_placed"
      description = "An order was placed."
      permission = "orders"
    `) + `
import fs from "node:fs";
import { user } from "knot:identity";
import { emit } from "knot:events";
export async function place(r) { await emit("order_placed", { item: r.params.item ?? "thing" }); return "placed"; }
export function nap(r) { return new Promise((resolve) => setTimeout(() => resolve("rested"), Number(r.params.ms ?? 100))); }
export function record(r) { fs.appendFileSync(r.config.marker, JSON.stringify({ by: user().name, ...r.params }) + "\\n"); return "ok"; }
`,
  });
  fs.writeFileSync(marker, "");
}

/**
 * A sink that records each event it receives (its default export gets the event itself) and who
 * knot:identity says it runs as, through the shop's `record` handler (over the loopback).
 */
export const RECORDING_SINK = (label: string) => `import { call } from "knot:plugin";
import { user } from "knot:identity";
export default async (event) => {
  await call("shop", "record", { sink: ${JSON.stringify(label)}, type: event.type, id: event.id, at: event.at, data: event.data, keys: Object.keys(event).sort(), identity: user().name });
};\n`;

export function records(marker: string): Array<{ by: string; sink: string; type: string; id: string; at: string; data: any; keys: string[]; identity: string }> {
  return fs.readFileSync(marker, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
}
