/**
 * The name grammars (sandbox/guest/names.ts) as one table: what each accepts and refuses. Every
 * side imports them from there; the last test fails if a copy of one appears again elsewhere.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as names from "../sandbox/guest/names.ts";
import type { KnotError } from "../src/errors.ts";
import { parseUserToolInput } from "../src/tools/user-tool-input.ts";

const long = (n: number, c = "a") => c.repeat(n);

const TABLE: { grammar: keyof typeof names; accepts: string[]; refuses: string[] }[] = [
  { grammar: "USER_NAME", accepts: ["alice", "Alice.Smith", "a", "a-b_c.d", "9lives", long(64)], refuses: ["", ".alice", "-a", "_a", "al ice", "alice@x", "é", long(65), "a\n"] },
  { grammar: "GROUP_NAME", accepts: ["ops", "team-1", "a_b", "0", long(64)], refuses: ["", "Ops", "-ops", "_ops", "o.ps", "@ops", long(65)] },
  { grammar: "GROUP_SHARING", accepts: ["@ops", "@team-1"], refuses: ["ops", "@", "@Ops", "@@ops", "everyone"] },
  { grammar: "PERMISSION", accepts: ["knot.mcp", "knot.tools.author", "plugin.demo.view_dashboard", "plugin.my-plugin.x", "a"], refuses: ["", "Knot.mcp", "plugin..x", ".x", "x.", "plugin.demo.*", "*", "a b", "-a.b"] },
  { grammar: "PERMISSION_ID", accepts: ["view", "view_dashboard", "x1"], refuses: ["", "View", "a.b", "a-b"] },
  { grammar: "SCOPE", accepts: ["*", "knot.mcp", "plugin.metrics.*", "plugin.my-plugin.export"], refuses: ["", "**", "plugin.*.x", "plugin.", ".*", "Plugin.x", "a b"] },
  { grammar: "PLUGIN_NAME", accepts: ["metrics", "my-plugin", "a_b", "0"], refuses: ["", "Metrics", "a.b", "a/b", "a b", "ä"] },
  { grammar: "IDENTIFIER", accepts: ["client", "_x", "Chart2", "a_b"], refuses: ["", "2x", "a-b", "a.b", "$x", "a b"] },
  { grammar: "TOOL_NAME", accepts: ["weekly_report", "Report-2", "9", "a__b"], refuses: ["", "_x", "-x", "a.b", "a b", "a/b", "é"] },
  { grammar: "PLUGIN_SPECIFIER", accepts: ["plugin:metrics", "plugin:metrics/client", "plugin:my-plugin/_x"], refuses: ["plugin:", "plugin:metrics/", "plugin:metrics/a/b", "plugin:Metrics", "plugin:metrics/2x", "plugins:metrics", "lib:metrics"] },
  { grammar: "LIB_SPECIFIER", accepts: ["lib:fmt", "lib:alice__fmt", "lib:alice.smith__fmt", "lib:a-b__c-d"], refuses: ["lib:", "lib:.fmt", "lib:.a__fmt", "lib:__fmt", "lib:alice.fmt", "lib:alice__f.mt", `lib:${long(63)}.x__fmt`, "lib:a/b", "plugin:fmt", "lib:fmt "] },
  { grammar: "PLUGIN_DEPENDENCY", accepts: ["other", "other>=1.2", "other ^2"], refuses: ["", "Other", ">=1.2"] },
  { grammar: "EVENT_TYPE_ID", accepts: ["exported", "a_1"], refuses: ["", "1a", "a.b", "a-b", "Exported"] },
  { grammar: "EVENT_TYPE", accepts: ["tool.saved", "plugin.metrics.exported", "plugin.my-plugin.x", long(128)], refuses: ["", "1tool", "Tool.saved", "tool saved", long(129)] },
  { grammar: "PLUGIN_EVENT_TYPE", accepts: ["plugin.metrics.exported", "plugin.my-plugin.x"], refuses: ["tool.saved", "plugin.Metrics.x", "plugin.metrics"] },
];

for (const row of TABLE) {
  test(`${row.grammar}: accepts and refuses its table`, () => {
    const grammar = names[row.grammar];
    assert.ok(grammar instanceof RegExp);
    for (const text of row.accepts) assert.ok(grammar.test(text), `${row.grammar} should accept ${JSON.stringify(text)}`);
    for (const text of row.refuses) assert.ok(!grammar.test(text), `${row.grammar} should refuse ${JSON.stringify(text)}`);
  });
}

test("the capture groups split specifiers, dependencies and plugin event types", () => {
  assert.deepEqual([...names.PLUGIN_SPECIFIER.exec("plugin:metrics/client")!].slice(1), ["metrics", "client"]);
  assert.equal(names.PLUGIN_SPECIFIER.exec("plugin:metrics")![2], undefined);
  assert.equal(names.LIB_SPECIFIER.exec("lib:alice.smith__fmt")![1], "alice.smith__fmt");
  assert.deepEqual([...names.PLUGIN_DEPENDENCY.exec("other >=1.2")!].slice(1), ["other", ">=1.2"]);
  assert.equal(names.PLUGIN_EVENT_TYPE.exec("plugin.my-plugin.done")![1], "my-plugin");
});

test("the handler-name rule refuses path, query and control characters", () => {
  for (const bad of ["a/b", "a?b", "a&b", "a#b", "a\u0000", "a\u001f", "a\u007f"]) assert.ok(names.HANDLER_NAME_FORBIDDEN.test(bad), bad);
  for (const ok of ["export_all", "stats", "a.b", "A-b"]) assert.ok(!names.HANDLER_NAME_FORBIDDEN.test(ok), ok);
});

test("an owner-qualified name is an owner's name, the separator and a tool name", () => {
  assert.equal(names.OWNER_SEPARATOR, "__");
  assert.equal(names.TOOL_NAME_MAX, 64);
  assert.ok(names.LIB_SPECIFIER.test(`lib:alice.smith${names.OWNER_SEPARATOR}weekly_report`));
  assert.ok(names.USER_NAME.test("alice.smith") && names.TOOL_NAME.test("weekly_report"));
});

/** The old copies' regex sources: none may appear again outside names.ts (one rule, one place). */
test("no product file holds a copy of a name grammar", () => {
  const root = fileURLToPath(new URL("../", import.meta.url));
  const copies = [
    "/^[a-z0-9_-]+$/", "/^[a-z0-9_-]{1,128}$/", "/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/", "/^[a-z0-9][a-z0-9_-]{0,63}$/",
    "/^[a-z0-9_]+(\\.[a-z0-9_-]+)*$/", "/^[A-Za-z_][A-Za-z0-9_]*$/", "/^[A-Za-z0-9][A-Za-z0-9_-]*$/", "/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/",
    "/^@[a-z0-9]", "plugin:[a-z0-9_-]", "/^plugin\\.([a-z0-9_-]+)", "/^[a-z0-9_]+$/",
  ];
  const found: string[] = [];
  for (const dir of ["src", "sandbox", "client-modules"]) {
    for (const file of fs.readdirSync(path.join(root, dir), { recursive: true }) as string[]) {
      if (!file.endsWith(".ts") || path.join(dir, file) === path.join("sandbox", "guest", "names.ts")) continue;
      const text = fs.readFileSync(path.join(root, dir, file), "utf8");
      for (const copy of copies) if (text.includes(copy)) found.push(`${dir}/${file}: ${copy}`);
    }
  }
  assert.deepEqual(found, []);
});

test("a user tool's name is at most 64 characters (the length is checked beside the grammar)", () => {
  const code = "export default () => 1";
  assert.equal(parseUserToolInput({ name: "a".repeat(64), code }).name.length, 64);
  assert.throws(() => parseUserToolInput({ name: "a".repeat(65), code }), (error: KnotError) => error.code === "INVALID_ARGUMENT" && error.detail.where === "name");
});
