import assert from "node:assert/strict";
import { test } from "node:test";
import { createTextMemo, prepareSource } from "../../client-modules/index.ts";

test("a text memo computes once per text, keeps only the most recent texts, and never keeps a long one", () => {
  const memo = createTextMemo<number>({ entries: 2, maxChars: 10 });
  let computed = 0;
  const get = (text: string) => memo(text, () => (computed += 1));
  assert.equal(get("a"), 1);
  assert.equal(get("a"), 1, "kept");
  get("b");
  get("a"); // a is now the most recent
  get("c"); // b goes
  assert.equal(computed, 3);
  get("a");
  assert.equal(computed, 3, "a stayed");
  get("b");
  assert.equal(computed, 4, "b was dropped");
  const long = "x".repeat(11);
  get(long);
  get(long);
  assert.equal(computed, 6, "a text past maxChars is computed each time");
});

test("stripped TypeScript is shared between calls with the same text, and cannot be changed by a caller", () => {
  const first = prepareSource("export const n: number = 1;\n", "ts", "a.ts");
  const again = prepareSource("export const n: number = 1;\n", "ts", "b.ts");
  assert.equal(first, again);
  assert.ok(Object.isFrozen(first));
  const failed = prepareSource("export const n: = ;\n", "ts", "c.ts");
  assert.equal(failed.ok, false);
  assert.ok(!failed.ok && Object.isFrozen(failed.diagnostics[0]));
});

test("a text memo keeps at most maxTotalChars of text: long texts push out the oldest, however few entries", () => {
  const memo = createTextMemo<number>({ entries: 100, maxChars: 10, maxTotalChars: 25 });
  let computed = 0;
  const get = (text: string) => memo(text, () => (computed += 1));
  get("a".repeat(10));
  get("b".repeat(10));
  get("c".repeat(10)); // 30 chars: the a's go
  assert.equal(computed, 3);
  get("c".repeat(10));
  get("b".repeat(10));
  assert.equal(computed, 3, "b and c stayed");
  get("a".repeat(10));
  assert.equal(computed, 4, "a was dropped");
});

test("TypeScript nested too deeply for the type stripper is a SYNTAX_ERROR diagnostic, not an unexpected failure", () => {
  // A chain the stripper recurses into on the JavaScript side (nested brackets trap inside its WebAssembly instead).
  const prepared = prepareSource(`export const v: number = 1${"+1".repeat(20_000)};\n`, "ts", "deep.ts");
  assert.equal(prepared.ok, false);
  assert.ok(!prepared.ok && prepared.diagnostics[0]?.code === "SYNTAX_ERROR" && /nested too deeply/.test(prepared.diagnostics[0].message));
});
