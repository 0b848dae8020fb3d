/**
 * The check of an elicitation answer against the schema it was asked with (src/mcp/elicitation-answer.ts):
 * MCP's subset (flat fields, enums, multi-select lists), own keys only, and work linear in the
 * schema plus the answer however a tool author and a client size them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { elicitationAnswerProblem } from "../../src/mcp/elicitation-answer.ts";

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 2, maxLength: 5 },
    age: { type: "integer", minimum: 0, maximum: 150 },
    ok: { type: "boolean" },
    colour: { type: "string", enum: ["red", "blue"] },
    size: { type: "string", oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
    tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 2 },
  },
  required: ["name"],
};

test("answers inside the schema pass; each way outside it is named", () => {
  assert.equal(elicitationAnswerProblem(SCHEMA, { name: "Ann", age: 3, ok: true, colour: "red", size: "l", tags: ["a", "b"] }), null);
  const wrong: Array<[unknown, RegExp]> = [
    [{ name: "A" }, /"name" must be at least 2/], [{ name: "Annabel" }, /at most 5/], [{ name: 5 }, /"name" must be a string/],
    [{ name: "Ann", age: 1.5 }, /integer/], [{ name: "Ann", age: -1 }, /at least 0/], [{ name: "Ann", ok: "yes" }, /true or false/],
    [{ name: "Ann", colour: "green" }, /listed options/], [{ name: "Ann", size: "m" }, /listed options/],
    [{ name: "Ann", tags: ["c"] }, /listed options/], [{ name: "Ann", tags: ["a", "b", "a"] }, /at most 2/], [{ name: "Ann", tags: "a" }, /a list/],
    [{}, /"name" is required/], [{ name: "Ann", admin: true }, /"admin" was not asked for/],
    [JSON.parse('{"name":"Ann","__proto__":{"x":1}}'), /"__proto__" was not asked for/], [{ name: "Ann", constructor: 1 }, /"constructor" was not asked for/],
    ["text", /must be an object/],
  ];
  for (const [content, problem] of wrong) assert.match(elicitationAnswerProblem(SCHEMA, content) ?? "passed", problem, JSON.stringify(content));
  assert.match(elicitationAnswerProblem(JSON.parse('{"type":"object","properties":{},"required":["toString"]}'), {}) ?? "", /"toString" is required/, "an inherited name is not an answer");
});

test("a large multi-select is checked in time linear in the options plus the answer", () => {
  const schema = { type: "object", properties: { pick: { type: "array", items: { enum: [...Array.from({ length: 150_000 }, () => "a"), "b"] } } } };
  const started = performance.now();
  assert.equal(elicitationAnswerProblem(schema, { pick: Array.from({ length: 16_000 }, () => "b") }), null);
  // The product of the two was 2.4 billion comparisons (seconds); linear is well under one.
  assert.ok(performance.now() - started < 1_000, `${Math.round(performance.now() - started)} ms`);
});
