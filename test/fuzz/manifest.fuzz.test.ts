/**
 * Fuzzing the plugin metadata parser and validator: random and mutated manifests must never crash
 * it; every failure is a coded, located error.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { KnotError } from "../../src/errors.ts";
import { parsePluginManifest } from "../../src/plugins/manifest/index.ts";
import { manifest } from "../helpers/fixtures.ts";

const VALID = manifest(`
  requires-runtime = ">=0.1"
  [tool.knot]
  version = "1.0.0"
  description = "d"
  permissions = ["export", "view"]
  export = ["client.js"]
  config = ["url"]
  [[tool.knot.handlers]]
  handler = "export_all"
  permission = "export"
  [[tool.knot.mcp_tools]]
  name = "export_metrics"
  description = "Export."
  handler = "export_metrics"
  permission = "view"
  read_only = true
  [[tool.knot.mcp_tools.parameters]]
  name = "hours"
  type = "int"
  default = 24
  enum = [1, 24]
  [[tool.knot.pages]]
  path = "/x"
  handler = "page"
  label = "X"
`);

function checkOutcome(source: string): void {
  const result = parsePluginManifest("fuzzed", source, { runtimeVersion: "0.1.0" });
  if (result.ok) return;
  assert.ok(result.errors.length > 0);
  for (const error of result.errors) {
    assert.ok(error instanceof KnotError, "only KnotErrors");
    assert.equal(error.code, "METADATA_INVALID");
    assert.match(error.message, /^plugin "fuzzed"/);
    assert.ok(Number.isInteger(error.detail.line) && error.detail.line! >= 1, `a line for: ${error.message}`);
  }
}

const lines = VALID.split("\n");

it("random text never crashes the parser", () => {
  fc.assert(fc.property(fc.string({ maxLength: 400 }), (text) => checkOutcome(text)), { numRuns: 300 });
  fc.assert(fc.property(fc.array(fc.string({ maxLength: 60 }), { maxLength: 20 }), (inner) =>
    checkOutcome(["// /// script", ...inner.map((l) => `// ${l}`), "// ///"].join("\n"))), { numRuns: 300 });
});

it("mutated valid manifests give coded, located errors or parse", () => {
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant("drop" as const), at: fc.nat(lines.length - 1) }),
    fc.record({ kind: fc.constant("dup" as const), at: fc.nat(lines.length - 1) }),
    fc.record({ kind: fc.constant("replace" as const), at: fc.nat(lines.length - 1), text: fc.string({ maxLength: 40 }) }),
    fc.record({ kind: fc.constant("value" as const), at: fc.nat(lines.length - 1), value: fc.oneof(fc.constantFrom("1", "true", "[]", "{}", '"x"', "-1.5", "[1,\"a\"]", "nan", '""'), fc.string({ maxLength: 10 }).map((s) => JSON.stringify(s))) }),
  );
  fc.assert(fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (mutations) => {
    const copy = [...lines];
    for (const m of mutations) {
      const i = Math.min(m.at, copy.length - 1);
      if (m.kind === "drop") copy.splice(i, 1);
      else if (m.kind === "dup") copy.splice(i, 0, copy[i] ?? "");
      else if (m.kind === "replace") copy[i] = `// ${m.text}`;
      else if (copy[i]?.includes(" = ")) copy[i] = copy[i]!.replace(/=.*$/, `= ${m.value}`);
    }
    checkOutcome(copy.join("\n"));
  }), { numRuns: 400 });
});
