import { test } from "node:test";
import assert from "node:assert/strict";
import { KnotError } from "../../src/errors.ts";
import { HEAD, parseErrors, plugin } from "./manifest-helpers.ts";

// ---------------------------------------------------------------------------------------------
// Malformed manifests: one problem each, named by key and line

const TOOL = ["[[tool.knot.mcp_tools]]", 'handler = "a"', 'description = "d"']; // file lines 5-7 after HEAD
const PARAM = "[[tool.knot.mcp_tools.parameters]]"; // file line 8 after HEAD + TOOL

const MALFORMED: ReadonlyArray<{ readonly name: string; readonly toml: readonly string[]; readonly key: string; readonly line: number }> = [
  { name: "unknown top-level key", toml: ['requires_runtime = ">=0.1"', ...HEAD], key: "requires_runtime", line: 2 },
  { name: "unknown table under tool", toml: [...HEAD, "[tool.knott]", "x = 1"], key: "tool.knott", line: 5 },
  { name: "no [tool.knot] table", toml: ['requires-runtime = ">=0.1"'], key: "tool.knot", line: 1 },
  { name: "version missing", toml: ["[tool.knot]", 'description = "x"'], key: "tool.knot.version", line: 2 },
  { name: "version not semver", toml: ["[tool.knot]", 'version = "1.0"'], key: "tool.knot.version", line: 3 },
  { name: "description not a string", toml: [...HEAD, "description = 3"], key: "tool.knot.description", line: 5 },
  { name: "typo in [tool.knot]", toml: [...HEAD, 'verison = "2.0.0"'], key: "tool.knot.verison", line: 5 },
  { name: "permission id with capitals", toml: ["[tool.knot]", 'version = "1.0.0"', 'permissions = ["export", "Bad-Id"]'], key: "tool.knot.permissions[1]", line: 4 },
  { name: "permission id repeated", toml: ["[tool.knot]", 'version = "1.0.0"', 'permissions = ["export", "export"]'], key: "tool.knot.permissions[1]", line: 4 },
  { name: "requires not a range", toml: [...HEAD, 'requires = "not a range"'], key: "tool.knot.requires", line: 5 },
  { name: "requires and requires-runtime both", toml: ['requires-runtime = ">=0.1"', ...HEAD, 'requires = ">=0.1"'], key: "tool.knot.requires", line: 6 },
  { name: "handler key missing", toml: [...HEAD, "[[tool.knot.handlers]]", 'permission = "export"'], key: "tool.knot.handlers[0].handler", line: 5 },
  { name: "handler name longer than a call can address (128)", toml: [...HEAD, "[[tool.knot.handlers]]", `handler = "${"h".repeat(129)}"`], key: "tool.knot.handlers[0].handler", line: 6 },
  { name: "event type that qualified passes 128 characters", toml: [...HEAD, "[[tool.knot.events]]", `type = "${"e".repeat(120)}"`, 'description = "d"', 'permission = "export"'], key: "tool.knot.events[0].type", line: 6 },
  { name: "handler not an identifier", toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "export-all"'], key: "tool.knot.handlers[0].handler", line: 6 },
  {
    name: "handler declared twice",
    toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', "[[tool.knot.handlers]]", 'handler = "a"'],
    key: "tool.knot.handlers[1].handler",
    line: 8,
  },
  { name: "handler permission not declared", toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', 'permission = "admin"'], key: "tool.knot.handlers[0].permission", line: 7 },
  { name: "unknown key in a handler", toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', 'method = "GET"'], key: "tool.knot.handlers[0].method", line: 7 },
  { name: "handlers not tables", toml: [...HEAD, 'handlers = ["a"]'], key: "tool.knot.handlers[0]", line: 5 },
  { name: "mcp tool without description", toml: [...HEAD, "[[tool.knot.mcp_tools]]", 'handler = "a"'], key: "tool.knot.mcp_tools[0].description", line: 5 },
  { name: "mcp tool with blank description", toml: [...HEAD, "[[tool.knot.mcp_tools]]", 'handler = "a"', 'description = "  "'], key: "tool.knot.mcp_tools[0].description", line: 7 },
  { name: "mcp tool name starting with -", toml: [...HEAD, "[[tool.knot.mcp_tools]]", 'name = "-a"', 'handler = "a"', 'description = "d"'], key: "tool.knot.mcp_tools[0].name", line: 6 },
  { name: "mcp tool name over 64 chars", toml: [...HEAD, "[[tool.knot.mcp_tools]]", `name = "${"a".repeat(65)}"`, 'handler = "a"', 'description = "d"'], key: "tool.knot.mcp_tools[0].name", line: 6 },
  { name: "tool name defaulted from a handler with $", toml: [...HEAD, "[[tool.knot.mcp_tools]]", 'handler = "get$"', 'description = "d"'], key: "tool.knot.mcp_tools[0].handler", line: 6 },
  {
    name: "mcp tool name repeated",
    toml: [...HEAD, "[[tool.knot.mcp_tools]]", 'name = "x"', 'handler = "a"', 'description = "d"', "[[tool.knot.mcp_tools]]", 'name = "x"', 'handler = "b"', 'description = "d"'],
    key: "tool.knot.mcp_tools[1].name",
    line: 10,
  },
  { name: "read_only with destructive", toml: [...HEAD, ...TOOL, "read_only = true", "destructive = true", 'permission = "export"'], key: "tool.knot.mcp_tools[0].read_only", line: 8 },
  { name: "read_only with write", toml: [...HEAD, ...TOOL, "write = true", "read_only = true", 'permission = "export"'], key: "tool.knot.mcp_tools[0].read_only", line: 9 },
  { name: "destructive tool without a permission", toml: [...HEAD, ...TOOL, "destructive = true"], key: "tool.knot.mcp_tools[0].destructive", line: 8 },
  { name: "write tool without a permission", toml: [...HEAD, ...TOOL, "write = true"], key: "tool.knot.mcp_tools[0].write", line: 8 },
  { name: "write handler without a permission", toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', "write = true"], key: "tool.knot.handlers[0].write", line: 7 },
  { name: "destructive handler without a permission", toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', "destructive = true"], key: "tool.knot.handlers[0].destructive", line: 7 },
  { name: "handler write not a boolean", toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', 'permission = "export"', 'write = "yes"'], key: "tool.knot.handlers[0].write", line: 8 },
  {
    name: "tool serving a write handler without write",
    toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', 'permission = "export"', "write = true", ...TOOL, 'permission = "export"'],
    key: "tool.knot.mcp_tools[0].handler",
    line: 10,
  },
  {
    name: "page served by a destructive handler",
    toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', 'permission = "export"', "destructive = true", "[[tool.knot.pages]]", 'path = "/p"', 'handler = "a"', 'label = "P"'],
    key: "tool.knot.pages[0].handler",
    line: 11,
  },
  {
    name: "plain handler of a function an MCP tool declares destructive",
    toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', ...TOOL, 'permission = "export"', "destructive = true"],
    key: "tool.knot.handlers[0].handler",
    line: 6,
  },
  {
    name: "write tool serving a destructive handler",
    toml: [...HEAD, "[[tool.knot.handlers]]", 'handler = "a"', 'permission = "export"', "destructive = true", ...TOOL, 'permission = "export"', "write = true"],
    key: "tool.knot.mcp_tools[0].handler",
    line: 10,
  },
  {
    name: "two MCP tools of one function, only the second marked write",
    toml: [...HEAD, ...TOOL, "[[tool.knot.mcp_tools]]", 'name = "a2"', 'handler = "a"', 'description = "d"', 'permission = "export"', "write = true"],
    key: "tool.knot.mcp_tools[0].handler",
    line: 6,
  },
  { name: "read_only not a boolean", toml: [...HEAD, ...TOOL, 'read_only = "yes"'], key: "tool.knot.mcp_tools[0].read_only", line: 8 },
  {
    name: "second tool's permission not declared",
    toml: [...HEAD, ...TOOL, "[[tool.knot.mcp_tools]]", 'handler = "b"', 'description = "d"', 'permission = "exprt"'],
    key: "tool.knot.mcp_tools[1].permission",
    line: 11,
  },
  { name: "mcp_tools as a single table", toml: [...HEAD, "[tool.knot.mcp_tools]", 'handler = "a"'], key: "tool.knot.mcp_tools", line: 5 },
  {
    name: "unknown parameter type in the second tool",
    toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', "[[tool.knot.mcp_tools]]", 'handler = "b"', 'description = "d"', PARAM, 'name = "y"', 'type = "integer"'],
    key: "tool.knot.mcp_tools[1].parameters[0].type",
    line: 15,
  },
  { name: "parameter without name", toml: [...HEAD, ...TOOL, PARAM, 'type = "int"'], key: "tool.knot.mcp_tools[0].parameters[0].name", line: 8 },
  { name: "parameter name not an identifier", toml: [...HEAD, ...TOOL, PARAM, 'name = "2x"'], key: "tool.knot.mcp_tools[0].parameters[0].name", line: 9 },
  { name: "parameter name repeated", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', PARAM, 'name = "x"'], key: "tool.knot.mcp_tools[0].parameters[1].name", line: 11 },
  { name: "int default given as a string", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', 'type = "int"', 'default = "24"'], key: "tool.knot.mcp_tools[0].parameters[0].default", line: 11 },
  { name: "int default with a fraction", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', 'type = "int"', "default = 2.5"], key: "tool.knot.mcp_tools[0].parameters[0].default", line: 11 },
  { name: "float default given as a bool", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', 'type = "float"', "default = true"], key: "tool.knot.mcp_tools[0].parameters[0].default", line: 11 },
  { name: "list default given as a string", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', 'type = "list"', 'default = "a,b"'], key: "tool.knot.mcp_tools[0].parameters[0].default", line: 11 },
  { name: "required parameter with a default", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', "required = true", 'default = "a"'], key: "tool.knot.mcp_tools[0].parameters[0].default", line: 11 },
  { name: "empty enum", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', "enum = []"], key: "tool.knot.mcp_tools[0].parameters[0].enum", line: 10 },
  { name: "enum value of the wrong type", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', 'type = "int"', 'enum = [1, "2"]'], key: "tool.knot.mcp_tools[0].parameters[0].enum[1]", line: 11 },
  { name: "default outside the enum", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', 'enum = ["a", "b"]', 'default = "c"'], key: "tool.knot.mcp_tools[0].parameters[0].default", line: 11 },
  { name: "typo in a parameter", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', "secrett = true"], key: "tool.knot.mcp_tools[0].parameters[0].secrett", line: 10 },
  { name: "secret not a boolean", toml: [...HEAD, ...TOOL, PARAM, 'name = "x"', "secret = 1"], key: "tool.knot.mcp_tools[0].parameters[0].secret", line: 10 },
  { name: "inline parameter table", toml: [...HEAD, ...TOOL, 'parameters = [{ name = "x", type = "date" }]'], key: "tool.knot.mcp_tools[0].parameters[0].type", line: 8 },
  { name: "page path without /", toml: [...HEAD, "[[tool.knot.pages]]", 'path = "stats"', 'handler = "a"', 'label = "Stats"'], key: "tool.knot.pages[0].path", line: 6 },
  { name: "page path / alone (its page route would be /api/pages/<plugin>/, which no route serves)", toml: [...HEAD, "[[tool.knot.pages]]", 'path = "/"', 'handler = "a"', 'label = "Home"'], key: "tool.knot.pages[0].path", line: 6 },
  { name: "page path starting //", toml: [...HEAD, "[[tool.knot.pages]]", 'path = "//x"', 'handler = "a"', 'label = "X"'], key: "tool.knot.pages[0].path", line: 6 },
  { name: "page path with ..", toml: [...HEAD, "[[tool.knot.pages]]", 'path = "/a/../b"', 'handler = "a"', 'label = "Stats"'], key: "tool.knot.pages[0].path", line: 6 },
  { name: "page without label", toml: [...HEAD, "[[tool.knot.pages]]", 'path = "/stats"', 'handler = "a"'], key: "tool.knot.pages[0].label", line: 5 },
  {
    name: "page permission not declared",
    toml: [...HEAD, "[[tool.knot.pages]]", 'path = "/stats"', 'handler = "a"', 'label = "Stats"', 'permission = "nope"'],
    key: "tool.knot.pages[0].permission",
    line: 9,
  },
  { name: "export in a subfolder", toml: [...HEAD, 'export = ["lib/client.js"]'], key: "tool.knot.export[0]", line: 5 },
  { name: "export not .js/.ts", toml: [...HEAD, 'export = ["client.js", "client.mjs"]'], key: "tool.knot.export[1]", line: 5 },
  { name: "export stem not an identifier", toml: [...HEAD, 'export = ["my-client.js"]'], key: "tool.knot.export[0]", line: 5 },
  { name: "export stems repeated", toml: [...HEAD, 'export = ["client.js", "client.ts"]'], key: "tool.knot.export[1]", line: 5 },
  { name: "config key repeated", toml: [...HEAD, 'config = ["url", "url"]'], key: "tool.knot.config[1]", line: 5 },
  { name: "config key empty", toml: [...HEAD, 'config = [""]'], key: "tool.knot.config[0]", line: 5 },
];

test(`each of ${MALFORMED.length} malformed manifests is refused with one error naming plugin, key and line`, () => {
  assert.ok(MALFORMED.length >= 25);
  for (const row of MALFORMED) {
    const errors = parseErrors(plugin(row.toml));
    assert.equal(errors.length, 1, `${row.name}: ${errors.map((error) => error.message).join(" | ")}`);
    const [error] = errors;
    assert.ok(error instanceof KnotError, row.name);
    assert.equal(error.code, "METADATA_INVALID", row.name);
    assert.ok(error.message.startsWith(`plugin "metrics": ${row.key} `), `${row.name}: ${error.message}`);
    assert.ok(error.message.endsWith(`(main.js line ${row.line})`), `${row.name}: ${error.message}`);
    assert.deepEqual(error.detail, { where: `metrics: ${row.key}`, line: row.line }, row.name);
  }
});

test("a function an MCP tool declares destructive is refused as a page, though a plain handlers entry for it comes first", () => {
  const errors = parseErrors(plugin([
    ...HEAD,
    "[[tool.knot.handlers]]", 'handler = "purge"', // lines 5-6
    "[[tool.knot.mcp_tools]]", 'handler = "purge"', 'description = "d"', 'permission = "export"', "destructive = true", // lines 7-11
    "[[tool.knot.pages]]", 'path = "/purge"', 'handler = "purge"', 'label = "Purge"', // lines 12-15
  ]));
  assert.deepEqual(errors.map((error) => [error.detail.where, error.detail.line]), [["metrics: tool.knot.handlers[0].handler", 6], ["metrics: tool.knot.pages[0].handler", 14]]);
  assert.match(errors[0]!.message, /names "purge", which tool\.knot\.mcp_tools\[0\] declares destructive = true: declare destructive = true here too/);
  assert.match(errors[1]!.message, /names "purge", which tool\.knot\.mcp_tools\[0\] declares destructive = true: pages are rendered on GET/);
});
