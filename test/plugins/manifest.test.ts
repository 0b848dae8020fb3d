import { test } from "node:test";
import assert from "node:assert/strict";
import { parametersToJsonSchema, validateParameterDecls } from "../../src/plugins/manifest/index.ts";
import type { PluginManifest } from "../../src/plugins/manifest-types.ts";
import { HEAD, parseErrors, parseOk, plugin } from "./manifest-helpers.ts";

const NO_NAVIGATION = { menus: [], icons: [], logoLight: null, logoDark: null, fieldHandlers: [], dependencies: [] };

// ---------------------------------------------------------------------------------------------
// A full, valid manifest

const FULL = plugin([
  'requires-runtime = ">=0.1"', //                                    2
  "", //                                                              3
  "[tool.knot]", //                                                   4
  'version = "1.2.3"', //                                             5
  'description = "Fleet metrics."', //                                6
  'permissions = ["export", "view_dashboard"]', //                    7
  'export = ["client.js", "format.ts"]', //                           8
  'config = ["url", "api_key"]', //                                   9
  "", //                                                              10
  "[[tool.knot.handlers]]           # addressable by URL", //         11
  'handler = "export_all"', //                                        12
  'permission = "export"', //                                         13
  "", //                                                              14
  "[[tool.knot.handlers]]", //                                        15
  'handler = "ping"', //                                              16
  "", //                                                              17
  "[[tool.knot.mcp_tools]]", //                                       18
  'description = "Current status."', //                               19
  'handler = "status"', //                                            20
  "read_only = true", //                                              21
  "", //                                                              22
  "[[tool.knot.mcp_tools]]", //                                       23
  'name = "purge-metrics"', //                                        24
  'description = "Delete old metrics."', //                           25
  'handler = "purge"', //                                             26
  'permission = "export"', //                                         27
  "destructive = true", //                                            28
  "", //                                                              29
  "[[tool.knot.mcp_tools.parameters]]", //                            30
  'name = "hours"', //                                                31
  'type = "int"', //                                                  32
  'description = "Hours to keep."', //                                33
  "default = 24", //                                                  34
  "enum = [12, 24, 48]", //                                           35
  "", //                                                              36
  "[[tool.knot.mcp_tools.parameters]]", //                            37
  'name = "reason"', //                                               38
  "required = true", //                                               39
  "personal = true", //                                               40
  "", //                                                              41
  "[[tool.knot.mcp_tools.parameters]]", //                            42
  'name = "hosts"', //                                                43
  'type = "list"', //                                                 44
  "", //                                                              45
  "[[tool.knot.mcp_tools.parameters]]", //                            46
  'name = "token"', //                                                47
  "secret = true", //                                                 48
  "", //                                                              49
  "[[tool.knot.mcp_tools.parameters]]", //                            50
  'name = "ratio"', //                                                51
  'type = "float"', //                                                52
  "default = 0.5", //                                                 53
  "", //                                                              54
  "[[tool.knot.mcp_tools.parameters]]", //                            55
  'name = "dry_run"', //                                              56
  'type = "bool"', //                                                 57
  "required = true", //                                               58
  "", //                                                              59
  "[[tool.knot.pages]]", //                                           60
  'path = "/dashboard"', //                                           61
  'handler = "dashboard"', //                                         62
  'label = "Dashboard"', //                                           63
  'permission = "view_dashboard"', //                                 64
]);

test("a full manifest parses to qualified declarations with lines, defaults and schemas", () => {
  const param = { description: "", required: false, secret: false, personal: false };
  const expected: PluginManifest = {
    name: "metrics",
    api: 1,
    version: "1.2.3",
    description: "Fleet metrics.",
    requires: ">=0.1",
    permissions: ["plugin.metrics.export", "plugin.metrics.view_dashboard"],
    handlers: [
      { handler: "export_all", permission: "plugin.metrics.export", write: false, destructive: false, area: null, line: 11 },
      { handler: "ping", permission: null, write: false, destructive: false, area: null, line: 15 },
    ],
    mcpTools: [
      {
        name: "status",
        description: "Current status.",
        handler: "status",
        permission: null,
        parameters: [],
        readOnly: true,
        destructive: false,
        write: false,
        inputSchema: { type: "object", properties: {} },
        headerParams: [],
        area: null,
        line: 18,
      },
      {
        name: "purge-metrics",
        description: "Delete old metrics.",
        handler: "purge",
        permission: "plugin.metrics.export",
        parameters: [
          { ...param, name: "hours", type: "int", description: "Hours to keep.", default: 24, enum: [12, 24, 48] },
          { ...param, name: "reason", type: "string", required: true, personal: true },
          { ...param, name: "hosts", type: "list" },
          { ...param, name: "token", type: "string", secret: true },
          { ...param, name: "ratio", type: "float", default: 0.5 },
          { ...param, name: "dry_run", type: "bool", required: true },
        ],
        readOnly: false,
        destructive: true,
        write: true,
        inputSchema: {
          type: "object",
          properties: {
            hours: { type: "integer", description: "Hours to keep.", default: 24, enum: [12, 24, 48] },
            reason: { type: "string" },
            hosts: { type: "array", items: {} },
            token: { type: "string" },
            ratio: { type: "number", default: 0.5 },
            dry_run: { type: "boolean" },
          },
          required: ["reason", "dry_run"],
        },
        headerParams: [],
        area: null,
        line: 23,
      },
    ],
    pages: [{ path: "/dashboard", handler: "dashboard", label: "Dashboard", permission: "plugin.metrics.view_dashboard", line: 60 }],
    exports: [
      { file: "client.js", stem: "client" },
      { file: "format.ts", stem: "format" },
    ],
    config: ["url", "api_key"],
    events: [],
    ...NO_NAVIGATION,
  };
  assert.deepEqual(parseOk(FULL), expected);
});

const DOCUMENTED_EXAMPLE = `// /// script
// requires-runtime = ">=0.1"
//
// [tool.knot]
// version = "1.0.0"
// permissions = ["export", "view_dashboard"]
// export = ["client.js", "format.js"]
//
// [[tool.knot.handlers]]           # addressable by URL, call() and the loopback
// handler = "export_all"           # a named export of main.js
// permission = "export"
//
// [[tool.knot.mcp_tools]]
// name = "export_metrics"          # optional, defaults to the handler name
// description = "Export fleet metrics as JSON for a time range."   # required
// handler = "export_metrics"
// permission = "export"            # optional gate on listing and calling
//
// [[tool.knot.mcp_tools.parameters]]
// name = "hours"
// type = "int"                     # string (default) | int | float | bool | list
// description = "Hours to export."
// default = 24
// ///
export async function export_all(request) {}
`;

test("the documented metadata example (docs/plugins.md) parses; a minimal block gets its defaults", () => {
  const example = parseOk(DOCUMENTED_EXAMPLE);
  assert.deepEqual(example.handlers, [{ handler: "export_all", permission: "plugin.metrics.export", write: false, destructive: false, area: null, line: 9 }]);
  assert.equal(example.mcpTools[0]?.line, 13);
  assert.deepEqual(example.mcpTools[0]?.inputSchema, {
    type: "object",
    properties: { hours: { type: "integer", description: "Hours to export.", default: 24 } },
  });
  const minimal = parseOk(plugin(["[tool.knot]", 'version = "0.0.1"']));
  assert.deepEqual(minimal, {
    name: "metrics", api: 1, version: "0.0.1", description: "", requires: null, permissions: [],
    handlers: [], mcpTools: [], pages: [], exports: [], config: [], events: [], ...NO_NAVIGATION,
  });
  const explicitApi = parseOk(plugin(["[tool.knot]", "api = 1", 'version = "0.0.1"']));
  assert.equal(explicitApi.api, 1);
});

test("the message reads as the brief's example", () => {
  const [error] = parseErrors(plugin([...HEAD, "[[tool.knot.mcp_tools]]", 'handler = "a"']));
  assert.equal(error?.message, 'plugin "metrics": tool.knot.mcp_tools[0].description is required (main.js line 5)');
});

// ---------------------------------------------------------------------------------------------
// api, runtime range, several errors at once

test("api is checked first: another api stops validation with one error", () => {
  for (const api of ["2", '"1"', "1.5"]) {
    const errors = parseErrors(plugin(["bogus = 1", "[tool.knot]", `api = ${api}`, "typo = 1"]));
    assert.equal(errors.length, 1, api);
    assert.equal(errors[0]?.code, "METADATA_INVALID");
    assert.match(errors[0]?.message ?? "", new RegExp(`tool\\.knot\\.api: unsupported api ${api.replace(".", "\\.")};.*\\(main\\.js line 4\\)$`));
  }
});

test("runtime range: satisfied, satisfied by a prerelease, not satisfied, in either spelling", () => {
  assert.equal(parseOk(plugin(['requires-runtime = ">=0.1"', ...HEAD])).requires, ">=0.1");
  assert.equal(parseOk(plugin([...HEAD, 'requires = "^0.2.0"']), { runtimeVersion: "0.2.1-beta.1" }).requires, "^0.2.0");

  const [topLevel] = parseErrors(plugin(['requires-runtime = ">=2"', ...HEAD]));
  assert.equal(topLevel?.code, "METADATA_INVALID");
  assert.equal(topLevel?.detail.line, 2);
  assert.match(topLevel?.message ?? "", /requires-runtime: this runtime's version 0\.1\.0 does not satisfy the required range ">=2"/);

  const [inKnot] = parseErrors(plugin([...HEAD, 'requires = "~0.0.9"']));
  assert.equal(inKnot?.detail.where, "metrics: tool.knot.requires");
  assert.equal(inKnot?.detail.line, 5);
  assert.match(inKnot?.message ?? "", /0\.1\.0.*"~0\.0\.9"/);
});

test("several problems are all reported, in file order", () => {
  const errors = parseErrors(
    plugin([
      'requires-runtime = ">=9"', //                           2
      "[tool.knot]", //                                        3
      'version = "one"', //                                    4
      'permissions = ["ok", "NOT_OK"]', //                     5
      "[[tool.knot.mcp_tools]]", //                            6
      'handler = "a"', //                                      7
      'permission = "missing"', //                             8
      "[[tool.knot.mcp_tools.parameters]]", //                 9
      'name = "n"', //                                         10
      'type = "int"', //                                       11
      'default = "x"', //                                      12
      'export = ["a.txt"]', //                                 13 (inside the parameter table: unknown key)
    ]),
  );
  assert.deepEqual(
    errors.map((error) => [error.detail.where, error.detail.line]),
    [
      ["metrics: requires-runtime", 2],
      ["metrics: tool.knot.version", 4],
      ["metrics: tool.knot.permissions[1]", 5],
      ["metrics: tool.knot.mcp_tools[0].description", 6],
      ["metrics: tool.knot.mcp_tools[0].permission", 8],
      ["metrics: tool.knot.mcp_tools[0].parameters[0].default", 12],
      ["metrics: tool.knot.mcp_tools[0].parameters[0].export", 13],
    ],
  );
  assert.ok(errors.every((error) => error.code === "METADATA_INVALID"));
});

// ---------------------------------------------------------------------------------------------
// Finding the block

test("the block may follow a shebang, comments and blank lines; `//` lines are empty TOML lines", () => {
  const source = plugin(["[tool.knot]", 'version = "1.0.0"', "", "[[tool.knot.handlers]]", 'handler = "a"'], [
    "#!/usr/bin/env node",
    "",
    "// Metrics plugin.",
    "/* SPDX-License-Identifier: MIT */",
  ]);
  assert.ok(source.includes("\n//\n"));
  assert.equal(parseOk(source).handlers[0]?.line, 9);
  assert.equal(parseOk(source.replaceAll("\n", "\r\n")).handlers[0]?.line, 9);
});

test("no block, a block after code, an unterminated block and bad TOML are refused with their line", () => {
  const cases: Array<[string, number, RegExp]> = [
    ["export function a() {}\n", 1, /no `\/\/ \/\/\/ script` metadata block/],
    ['import x from "y";\n// /// script\n// [tool.knot]\n// ///\n', 2, /must come before any code/],
    ['// /// script\n// [tool.knot]\n// version = "1.0.0"\n', 1, /unterminated/],
    ['// /// script\n// [tool.knot]\nexport function a() {}\n// ///\n', 3, /unterminated/],
    [plugin(["[tool.knot]", 'version = "1.0.0"', "", "permissions = [", "oops"]), 6, /TOML syntax error/],
    [plugin(["[tool.knot]", 'version = "1.0.0"', 'version = "2.0.0"']), 4, /TOML syntax error/],
  ];
  for (const [source, line, pattern] of cases) {
    const errors = parseErrors(source);
    assert.equal(errors.length, 1, source);
    assert.equal(errors[0]?.code, "METADATA_INVALID");
    assert.deepEqual(errors[0]?.detail, { where: "metrics: metadata block", line }, source);
    assert.match(errors[0]?.message ?? "", pattern);
    assert.ok(errors[0]?.message.startsWith('plugin "metrics": '));
    assert.ok(errors[0]?.message.endsWith(`(main.js line ${line})`));
  }
});

// ---------------------------------------------------------------------------------------------
// Reused for user tools

test("validateParameterDecls accepts a list and names problems relative to `where`", () => {
  const ok = validateParameterDecls([{ name: "city", required: true }, { name: "days", type: "int", default: 3 }], "parameters");
  assert.deepEqual(ok, {
    ok: true,
    params: [
      { name: "city", type: "string", description: "", required: true, secret: false, personal: false },
      { name: "days", type: "int", description: "", required: false, default: 3, secret: false, personal: false },
    ],
  });
  assert.deepEqual(validateParameterDecls(undefined, "parameters"), { ok: true, params: [] });

  const bad = validateParameterDecls([{ name: "a", type: "date" }, { name: "a", colour: 1 }], 'tool "weather": parameters');
  assert.equal(bad.ok, false);
  if (bad.ok) return;
  assert.deepEqual(bad.errors.map((error) => [error.code, error.detail.where]), [
    ["METADATA_INVALID", 'tool "weather": parameters[0].type'],
    ["METADATA_INVALID", 'tool "weather": parameters[1].colour'],
    ["METADATA_INVALID", 'tool "weather": parameters[1].name'],
  ]);
  assert.match(bad.errors[0]?.message ?? "", /^tool "weather": parameters\[0\]\.type must be one of string, int, float, bool, list/);

  const notList = validateParameterDecls({ name: "a" }, "parameters", { code: "BAD_REQUEST" });
  assert.equal(notList.ok, false);
  if (!notList.ok) assert.deepEqual([notList.errors[0]?.code, notList.errors[0]?.detail.where], ["BAD_REQUEST", "parameters"]);
});

test("parametersToJsonSchema: empty, required only when needed, secret/personal left out", () => {
  assert.deepEqual(parametersToJsonSchema([]), { type: "object", properties: {} });
  const base = { description: "", required: false, secret: true, personal: true } as const;
  const schema = parametersToJsonSchema([
    { ...base, name: "tags", type: "list", default: ["a"] },
    { ...base, name: "__proto__", type: "bool", required: true },
  ]);
  assert.deepEqual(Object.keys(schema.properties), ["tags", "__proto__"]);
  assert.deepEqual(schema.properties["tags"], { type: "array", items: {}, default: ["a"] }, "a list always has items");
  assert.deepEqual(schema.properties["__proto__"], { type: "boolean" });
  assert.deepEqual(schema.required, ["__proto__"]);
  assert.equal(Object.getPrototypeOf(schema.properties), Object.prototype);
});
