/**
 * copyJson (src/validation/json-copy.ts): the per-call copy of tool arguments. A copy shares
 * nothing with what it copies, keeps a `__proto__` member as data, and leaves anything that is not
 * plain JSON to structuredClone, so it never answers differently from the clone it replaced.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { copyJson } from "../../src/validation/json-copy.ts";

test("a copy of JSON data is equal and shares no object with the original", () => {
  const original = JSON.parse('{"text":"hi","n":1.5,"ok":true,"none":null,"list":[1,"two",{"deep":[[]]}],"nested":{"a":{"b":"c"}}}');
  const copy = copyJson(original);
  assert.deepEqual(copy, original);
  copy.list[2].deep.push("changed");
  copy.nested.a.b = "changed";
  assert.deepEqual(original.list[2].deep, [[]]);
  assert.equal(original.nested.a.b, "c");
});

test("a __proto__ member stays a member: the copy's prototype is never set from data", () => {
  const original = JSON.parse('{"__proto__":{"isAdmin":true},"inner":{"__proto__":[1]}}');
  const copy = copyJson(original) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal((copy as { isAdmin?: unknown }).isAdmin, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, { isAdmin: true });
  assert.equal(Object.getPrototypeOf(copy.inner), Object.prototype);
  assert.deepEqual(Object.keys(copy.inner as object), ["__proto__"]);
  assert.deepEqual(copy, structuredClone(original));
});

test("what is not plain JSON is copied by structuredClone, with its answer and its errors", () => {
  const when = new Date(0);
  const copy = copyJson({ when, map: new Map([["k", 1]]) });
  assert.ok(copy.when instanceof Date && copy.when !== when && copy.when.getTime() === 0);
  assert.ok(copy.map instanceof Map && copy.map.get("k") === 1);
  assert.deepEqual(copyJson({ big: 1n }), { big: 1n });
  assert.throws(() => copyJson({ fn: () => 1 }), { name: "DataCloneError" });
  // Deeper than the plain walk goes: structuredClone copies it (no recursion limit of ours).
  let deep: unknown = "leaf";
  for (let i = 0; i < 500; i++) deep = [deep];
  assert.deepEqual(copyJson(deep), deep);
});

test("attack: a __proto__ member in tool arguments never becomes the validated copy's prototype", async () => {
  const { validateArguments } = await import("../../src/validation/json-schema.ts");
  const schema = { type: "object", properties: { opts: { type: "object" } }, required: ["opts"] };
  const args = JSON.parse('{"opts":{"__proto__":{"isAdmin":true},"a":1},"__proto__":{"isAdmin":true}}');
  const copy = validateArguments(schema, args, "probe");
  const opts = copy.opts as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal(Object.getPrototypeOf(opts), Object.prototype);
  assert.equal(opts.isAdmin, undefined);
  assert.equal((copy as { isAdmin?: unknown }).isAdmin, undefined);
  assert.deepEqual(Object.keys(opts), ["__proto__", "a"]);
  assert.equal(({} as { isAdmin?: unknown }).isAdmin, undefined, "Object.prototype is untouched");
});
