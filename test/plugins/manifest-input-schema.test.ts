/**
 * `input_schema` on `[[tool.knot.mcp_tools]]`: a raw JSON Schema as a TOML table or a JSON string,
 * kept unchanged, bounded like parameters, compiled at load, and refused with one error naming the
 * key and line when it is not a usable object schema.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { KnotError } from "../../src/errors.ts";
import { PARAMETER_LIMITS } from "../../src/plugins/manifest/parameter-limits.ts";
import { validateArguments } from "../../src/validation/json-schema.ts";
import { HEAD, parseErrors, parseOk, plugin } from "./manifest-helpers.ts";

const TOOL = ["[[tool.knot.mcp_tools]]", 'handler = "a"', 'description = "d"']; // file lines 5-7 after HEAD
const KEY = "tool.knot.mcp_tools[0].input_schema";

/** `input_schema = '<json>'` on line 8. */
const asJson = (schema: unknown): string[] => [...HEAD, ...TOOL, `input_schema = '${JSON.stringify(schema)}'`];

const SCHEMA_2020 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { city: { type: "string" } } } },
  properties: { address: { $ref: "#/$defs/address" }, phone: { type: "string" }, email: { type: "string" }, tags: { type: "array", prefixItems: [{ type: "string" }] } },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  additionalProperties: false,
};

test("a JSON string is kept exactly, and its arguments are checked in 2020-12", () => {
  const [tool] = parseOk(plugin(asJson(SCHEMA_2020))).mcpTools;
  assert.deepEqual(tool?.inputSchema, SCHEMA_2020);
  assert.deepEqual(tool?.parameters, []);
  assert.deepEqual(tool?.headerParams, []);
  assert.deepEqual(validateArguments(tool!.inputSchema, { email: "a@b", address: { city: "Oslo" } }, "a"), { email: "a@b", address: { city: "Oslo" } });
  assert.throws(() => validateArguments(tool!.inputSchema, { address: { city: "Oslo" } }, "a"), /"phone" of "a" is required/);
  assert.throws(() => validateArguments(tool!.inputSchema, { email: "a@b", fax: "1" }, "a"), /must NOT have additional properties/);
  assert.throws(() => validateArguments(tool!.inputSchema, { email: "a@b", tags: [3] }, "a"), /tags.0|must be string/, "prefixItems is 2020-12");
});

test("a TOML table (inline or a sub-table) works too, and x-mcp-header declarations are collected", () => {
  const [inline] = parseOk(plugin([...HEAD, ...TOOL, 'input_schema = { type = "object", properties = { q = { type = "string" } } }'])).mcpTools;
  assert.deepEqual(inline?.inputSchema, { type: "object", properties: { q: { type: "string" } } });
  const [table] = parseOk(plugin([
    ...HEAD, ...TOOL, "[tool.knot.mcp_tools.input_schema]", 'type = "object"',
    'properties.region = { type = "string", "x-mcp-header" = "Region" }',
    'properties.filter = { type = "object", properties = { level = { type = "integer", "x-mcp-header" = "Level" } } }',
  ])).mcpTools;
  assert.deepEqual(table?.headerParams, [
    { path: ["region"], header: "Region", type: "string" },
    { path: ["filter", "level"], header: "Level", type: "integer" },
  ]);
});

test("draft-07 is used when the schema names it", () => {
  const draft07 = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { pair: { type: "array", items: [{ type: "string" }, { type: "integer" }] } } };
  const [tool] = parseOk(plugin(asJson(draft07))).mcpTools;
  assert.deepEqual(validateArguments(tool!.inputSchema, { pair: ["a", 1] }, "a"), { pair: ["a", 1] });
  assert.throws(() => validateArguments(tool!.inputSchema, { pair: ["a", "b"] }, "a"), /must be integer/, "tuple items are draft-07");
});

const deep = (levels: number): unknown => (levels === 0 ? { type: "string" } : { type: "object", properties: { x: deep(levels - 1) } });

const MALFORMED: ReadonlyArray<{ readonly name: string; readonly toml: readonly string[]; readonly line: number; readonly message: RegExp }> = [
  { name: "a number", toml: [...HEAD, ...TOOL, "input_schema = 3"], line: 8, message: /must be a table or a JSON string/ },
  { name: "JSON that does not parse", toml: [...HEAD, ...TOOL, "input_schema = '{\"type\": '"], line: 8, message: /is not valid JSON/ },
  { name: "a JSON array", toml: [...HEAD, ...TOOL, "input_schema = '[]'"], line: 8, message: /must hold a JSON Schema object/ },
  { name: "type not object", toml: asJson({ type: "string" }), line: 8, message: /"type": "object"/ },
  { name: "type missing", toml: asJson({ properties: {} }), line: 8, message: /"type": "object"/ },
  { name: "with parameters too", toml: [...asJson({ type: "object" }), "[[tool.knot.mcp_tools.parameters]]", 'name = "q"'], line: 8, message: /cannot be combined with parameters/ },
  { name: "unsupported $schema", toml: asJson({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" }), line: 8, message: /unsupported "\$schema"/ },
  { name: "properties not an object", toml: asJson({ type: "object", properties: [] }), line: 8, message: /"properties" must be an object/ },
  { name: "required not strings", toml: asJson({ type: "object", required: [1] }), line: 8, message: /"required" must be an array of strings/ },
  { name: "reserved argument name", toml: asJson({ type: "object", properties: { constructor: { type: "string" } } }), line: 8, message: /"constructor" is refused/ },
  { name: "__proto__ key", toml: [...HEAD, ...TOOL, `input_schema = '{"type":"object","properties":{"a":{"__proto__":{"type":"string"}}}}'`], line: 8, message: /__proto__/ },
  { name: "a date in a table", toml: [...HEAD, ...TOOL, "input_schema = { type = \"object\", default = 2026-01-01 }"], line: 8, message: /a date/ },
  { name: "nan in a table", toml: [...HEAD, ...TOOL, "input_schema = { type = \"object\", maximum = nan }"], line: 8, message: /NaN/ },
  { name: "too deep", toml: asJson(deep(PARAMETER_LIMITS.maxSchemaDepth)), line: 8, message: /nests deeper than 32 levels/ },
  { name: "too large", toml: asJson({ type: "object", description: "x".repeat(PARAMETER_LIMITS.maxSchemaBytes) }), line: 8, message: /at most 64 KiB/ },
  { name: "a remote $ref", toml: asJson({ type: "object", properties: { p: { $ref: "https://example.com/p.json" } } }), line: 8, message: /ajv can compile/ },
  { name: "a malformed keyword", toml: asJson({ type: "object", properties: { p: { type: "string", pattern: "(" } } }), line: 8, message: /ajv can compile/ },
  { name: "x-mcp-header on a number", toml: asJson({ type: "object", properties: { p: { type: "number", "x-mcp-header": "P" } } }), line: 8, message: /string, integer or boolean/ },
  { name: "x-mcp-header under items", toml: asJson({ type: "object", properties: { p: { type: "array", items: { type: "string", "x-mcp-header": "P" } } } }), line: 8, message: /reached through "properties" alone/ },
  { name: "x-mcp-header at the root", toml: asJson({ type: "object", "x-mcp-header": "P" }), line: 8, message: /reached through "properties" alone/ },
  { name: "x-mcp-header not a token", toml: asJson({ type: "object", properties: { p: { type: "string", "x-mcp-header": "Région 1" } } }), line: 8, message: /header-name token/ },
  {
    name: "x-mcp-header repeated ignoring case",
    toml: asJson({ type: "object", properties: { a: { type: "string", "x-mcp-header": "Region" }, b: { type: "string", "x-mcp-header": "REGION" } } }),
    line: 8, message: /repeats/,
  },
];

test(`each of ${MALFORMED.length} bad input_schema values is refused with one error naming the key and line`, () => {
  for (const row of MALFORMED) {
    const errors = parseErrors(plugin(row.toml));
    assert.equal(errors.length, 1, `${row.name}: ${errors.map((error) => error.message).join(" | ")}`);
    const [error] = errors;
    assert.ok(error instanceof KnotError, row.name);
    assert.equal(error.code, "METADATA_INVALID", row.name);
    assert.ok(error.message.startsWith(`plugin "metrics": ${KEY}`), `${row.name}: ${error.message}`);
    assert.ok(error.message.endsWith(`(main.js line ${row.line})`), `${row.name}: ${error.message}`);
    assert.match(error.message, row.message, row.name);
  }
});

test("a huge JSON string is refused by its length, before it is parsed", () => {
  const huge = `{"type":"object","description":"${"x".repeat(PARAMETER_LIMITS.maxSchemaBytes)}"`; // not even valid JSON
  const [error] = parseErrors(plugin([...HEAD, ...TOOL, `input_schema = '${huge}'`]));
  assert.match(error?.message ?? "", /at most 64 KiB/);
});
