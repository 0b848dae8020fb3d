/**
 * The server runs with the same Node flags however it is started (`npm start`, bin/knot-tools.js)
 * and as bench:load measures it: --no-node-snapshot (isolated-vm needs it) and a young generation
 * capped at 8 MB per semi-space (the server's RSS under load, README "Benchmarks").
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
const REQUIRED = ["--no-node-snapshot", "--max-semi-space-size=8"];

test("npm start, bin/knot-tools.js and bench:load's server start Node with the same server flags", () => {
  const start = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts["start"] ?? "";
  const bin = read("bin/knot-tools.js").match(/spawn\(node, \[([^\]]*)\]/)?.[1] ?? "";
  const load = read("bench/load.ts").match(/load\/server\.ts"[^]*?execArgv: \[([^\]]*)\]/)?.[1] ?? "";
  for (const [where, text] of [["npm start", start], ["bin/knot-tools.js", bin], ["bench/load.ts", load]] as const) {
    for (const flag of REQUIRED) assert.ok(text.includes(flag), `${where} does not start the server with ${flag}: ${text}`);
  }
});
