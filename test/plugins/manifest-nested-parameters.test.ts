/** `object` parameters with nested `properties` and `list` parameters with `items`: parsing, errors by key and line, schema. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { PARAMETER_LIMITS } from "../../src/plugins/manifest/parameter-limits.ts";
import { validateParameterDecls } from "../../src/plugins/manifest/parameters.ts";
import { HEAD, parseErrors, parseOk, plugin } from "./manifest-helpers.ts";

const TOOL = ["[[tool.knot.mcp_tools]]", 'description = "Contact people."', 'handler = "a"']; // lines 5-7

test("nested properties and items parse from TOML tables and become a nested JSON Schema", () => {
  const manifest = parseOk(plugin([
    ...HEAD, ...TOOL,
    "[[tool.knot.mcp_tools.parameters]]",
    'name = "contact"',
    'type = "object"',
    "required = true",
    'description = "Who to call."',
    "[[tool.knot.mcp_tools.parameters.properties]]",
    'name = "phone"',
    "required = true",
    "personal = true",
    "[[tool.knot.mcp_tools.parameters.properties]]",
    'name = "kind"',
    'enum = ["home", "work"]',
    'default = "home"',
    "[[tool.knot.mcp_tools.parameters]]",
    'name = "keys"',
    'type = "list"',
    'items = { type = "object", properties = [{ name = "token", secret = true }, { name = "uses", type = "int", default = 1 }] }',
    "[[tool.knot.mcp_tools.parameters]]",
    'name = "tags"',
    'type = "list"',
    'items = "string"',
  ]));
  const tool = manifest.mcpTools[0]!;
  assert.deepEqual(tool.inputSchema, {
    type: "object",
    properties: {
      contact: { type: "object", description: "Who to call.", properties: { phone: { type: "string" }, kind: { type: "string", enum: ["home", "work"], default: "home" } }, required: ["phone"] },
      keys: { type: "array", items: { type: "object", properties: { token: { type: "string" }, uses: { type: "integer", default: 1 } } } },
      tags: { type: "array", items: { type: "string" } },
    },
    required: ["contact"],
  });
  assert.equal(tool.parameters[0]?.properties?.[0]?.personal, true);
  assert.equal(tool.parameters[1]?.items?.properties?.[0]?.secret, true);
});

test("nested mistakes are fatal and name the nested key and its line", () => {
  const errors = parseErrors(plugin([
    ...HEAD, ...TOOL,
    "[[tool.knot.mcp_tools.parameters]]", //                 8
    'name = "contact"', //                                   9
    'type = "object"', //                                    10
    "[[tool.knot.mcp_tools.parameters.properties]]", //      11
    'name = "phone"', //                                     12
    "colour = 1", //                                         13: unknown key
    "[[tool.knot.mcp_tools.parameters.properties]]", //      14
    'name = "age"', //                                       15
    'type = "int"', //                                       16
    'default = "old"', //                                    17
    "[[tool.knot.mcp_tools.parameters]]", //                 18
    'name = "tags"', //                                      19
    'type = "string"', //                                    20
    'items = "int"', //                                      21: items on a string
    "[[tool.knot.mcp_tools.parameters]]", //                 22
    'name = "rows"', //                                      23
    'type = "list"', //                                      24
    'items = "date"', //                                     25
  ]));
  assert.deepEqual(errors.map((e) => [e.detail.where, e.detail.line]), [
    ["metrics: tool.knot.mcp_tools[0].parameters[0].properties[0].colour", 13],
    ["metrics: tool.knot.mcp_tools[0].parameters[0].properties[1].default", 17],
    ["metrics: tool.knot.mcp_tools[0].parameters[1].items", 21],
    ["metrics: tool.knot.mcp_tools[0].parameters[2].items", 25],
  ]);
  assert.match(errors[1]!.message, /must be an integer to match type "int"/);
  assert.match(errors[2]!.message, /belongs to type "list"/);
});

test("an object default is checked against the declared members; item tables refuse name/required/default", () => {
  const bad = validateParameterDecls([
    { name: "c", type: "object", default: { phone: 5 }, properties: [{ name: "phone" }] },
    { name: "d", type: "object", default: {}, properties: [{ name: "phone", required: true }] },
    { name: "l", type: "list", default: [1, "x"], items: "int" },
    { name: "m", type: "list", items: { name: "x", type: "int", required: true } },
    { name: "o", type: "object", properties: [{ name: "a" }, { name: "a" }] },
    { name: "e", type: "list", items: "int", enum: [[1, 2], [1, "x"]] },
  ], "parameters");
  assert.equal(bad.ok, false);
  const messages = bad.ok ? [] : bad.errors.map((e) => e.message);
  assert.deepEqual(messages, [
    'parameters[0].default at .phone: must be a string to match type "string" (got a table)',
    "parameters[1].default at .phone: is required by the declared properties (got a table)",
    'parameters[2].default at [1]: must be an integer to match type "int" (got an array)',
    "parameters[3].items.name is not a known key (expected one of: type, description, enum, secret, personal, properties, items)",
    "parameters[3].items.required is not a known key (expected one of: type, description, enum, secret, personal, properties, items)",
    'parameters[4].properties[1].name repeats parameter name "a"',
    'parameters[5].enum[1] at [1]: must be an integer to match type "int" (got an array)',
  ]);
});

test("nesting is bounded: at most 8 levels of declared parameters and 128 in all", () => {
  const chain = (levels: number) => {
    // p1 holds p2 … holds p<levels>, a string.
    let node: any = { name: `p${levels}` };
    for (let level = levels - 1; level >= 1; level--) node = { name: `p${level}`, type: "object", properties: [node] };
    return [node];
  };
  assert.equal(validateParameterDecls(chain(PARAMETER_LIMITS.maxNesting), "parameters").ok, true);
  const tooDeep = validateParameterDecls(chain(PARAMETER_LIMITS.maxNesting + 1), "parameters");
  assert.equal(tooDeep.ok, false);
  assert.match(tooDeep.ok ? "" : tooDeep.errors[0]!.message, /nest at most 8 levels deep/);
  const lists = validateParameterDecls([{ name: "l", type: "list", items: { type: "list", items: { type: "list", items: { type: "list", items: { type: "list", items: { type: "list", items: { type: "list", items: { type: "list", items: "int" } } } } } } } }], "parameters");
  assert.equal(lists.ok, false, "items count as levels too");
  const wide = Array.from({ length: 5 }, (_, i) => ({ name: `o${i}`, type: "object", properties: Array.from({ length: 60 }, (_, j) => ({ name: `m${j}` })) }));
  const many = validateParameterDecls(wide, "parameters");
  assert.equal(many.ok, false);
  assert.match(many.ok ? "" : many.errors[0]!.message, /at most 128 parameters in all/);
});
