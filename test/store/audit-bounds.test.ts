/** Audit row bounds (issue 10 item 11): whatever the input, the stored args fit their budget and keep a marker of what was cut. */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { ARGS_BUDGET_BYTES, boundArgs, clampText, MAX_AUDIT_TEXT, TOO_DEEP } from "../../src/audit/audit-bounds.ts";
import { canonicalJson } from "../../src/store/audit-hash.ts";

const size = (value: unknown) => Buffer.byteLength(canonicalJson(value));

test("any JSON value is bounded to the budget; small ones are kept exactly", () => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
    const bounded = boundArgs(value, 2_048);
    assert.ok(size(bounded) <= 2_048);
    if (size(value) <= 2_048 && canonicalJson(value) === canonicalJson(JSON.parse(JSON.stringify(value)))) {
      assert.equal(canonicalJson(bounded), canonicalJson(value));
    }
  }), { numRuns: 300 });
});

test("huge strings, long lists, many members and deep nesting are cut with markers", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 100_000; i += 1) deep = { d: deep };
  const bounded = boundArgs({
    text: "x".repeat(1_000_000),
    list: Array.from({ length: 100_000 }, (_, i) => i),
    wide: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])),
    deep,
  }) as Record<string, unknown>;
  assert.ok(size(bounded) <= ARGS_BUDGET_BYTES, `${size(bounded)} bytes`);
  assert.match(String(bounded.text), /…\[\d+ more chars\]$/);
  assert.match(String((bounded.list as unknown[]).at(-1)), /more items/);
  assert.match(String((bounded.wide as Record<string, unknown>)["…"]), /more members/);
  assert.ok(canonicalJson(bounded.deep).includes(TOO_DEEP));
});

test("clampText keeps short text and marks what it cuts, never past the limit", () => {
  assert.equal(clampText("claude/1.0"), "claude/1.0");
  const clamped = clampText("n".repeat(900_000));
  assert.ok(clamped.length <= MAX_AUDIT_TEXT);
  assert.match(clamped, /^n+…\[\d+ more chars\]$/);
  assert.ok(!/[\uD800-\uDFFF]$/.test(clampText(`${"a".repeat(180)}${"😀".repeat(100)}`).split("…")[0]!), "no half surrogate pair");
});

test("an argument named __proto__ stays in the row as an ordinary member, never as the copy's prototype", () => {
  const args = JSON.parse('{"__proto__":{"secret":"s3"},"nested":{"__proto__":0}}');
  const bounded = boundArgs(args) as Record<string, unknown>;
  assert.equal(canonicalJson(bounded), '{"__proto__":{"secret":"s3"},"nested":{"__proto__":0}}');
  assert.equal(Object.getPrototypeOf(bounded), Object.prototype);
  assert.equal((bounded as { secret?: unknown }).secret, undefined);
});
