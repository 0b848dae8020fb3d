import assert from "node:assert/strict";
import fs from "node:fs";
import { registerHooks } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { buildClientModules, exportedNames, type ClientModuleSet } from "../../client-modules/index.ts";

const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A real plugin folder in a temp dir, read with the real file system. */
function pluginDir(files: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "knot-client-modules-"));
  tempDirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const reads: string[] = [];
  const readFile = (file: string) => {
    reads.push(file);
    return fs.readFileSync(path.join(dir, file), "utf8");
  };
  return { readFile, reads };
}

const CLIENT = [
  'import { call } from "knot:plugin";',
  'import { tidy } from "plugin:metrics/format";',
  "export let calls = 0;",
  "export default class Client {",
  '  export(range = "1h") { calls++; return call("metrics", "export_all", { range: tidy(range) }); }',
  "}",
  "export function record() { calls++; }",
].join("\n");
const FORMAT_TS = [
  'import { record } from "plugin:metrics/client";',
  "export function tidy(word: string): string { return word.trim(); }",
  "export function other(): void { record(); }",
].join("\n");

function buildMetrics() {
  const dir = pluginDir({ "client.js": CLIENT, "format.ts": FORMAT_TS });
  const built = buildClientModules("metrics", [{ file: "client.js", stem: "client" }, { file: "format.ts", stem: "format" }], dir.readFile);
  assert.equal(built.ok, true, JSON.stringify(!built.ok && built.problems));
  return { set: (built as { set: ClientModuleSet }).set, reads: dir.reads };
}

test("every stem is importable by full name; the alias comes first; each file is read once", () => {
  const { set, reads } = buildMetrics();
  assert.equal(set.plugin, "metrics");
  assert.deepEqual(set.specifiers, ["plugin:metrics", "plugin:metrics/client", "plugin:metrics/format"]);
  assert.deepEqual([...set.modules.keys()], set.specifiers);
  assert.deepEqual(reads, ["client.js", "format.ts"]);
  assert.equal(set.modules.get("plugin:metrics/client"), CLIENT); // JS is kept as written
  const format = set.modules.get("plugin:metrics/format") ?? "";
  assert.doesNotMatch(format, /: string|: void/); // TS is stripped
  assert.equal(format.length, FORMAT_TS.length);
});

test("the alias is a re-export of the first module only (default included when it has one)", () => {
  const { set } = buildMetrics();
  assert.equal(
    set.modules.get("plugin:metrics"),
    'export * from "plugin:metrics/client";\nexport { default } from "plugin:metrics/client";\n',
  );
  const noDefault = buildClientModules("tiny", [{ file: "a.js", stem: "a" }], () => "export const x = 1;");
  assert.equal(noDefault.ok && noDefault.set.modules.get("plugin:tiny"), 'export * from "plugin:tiny/a";\n');
});

test("linked by a real ES module loader, the alias shares the first module's instance and never flattens", async () => {
  const { set } = buildMetrics();
  const knotPlugin = 'export const call = (plugin, fn, params) => ({ plugin, fn, params });';
  const sources = new Map([...set.modules, ["knot:plugin", knotPlugin]]);
  const scheme = "knot-client-test:";
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (sources.has(specifier)) return { url: scheme + encodeURIComponent(specifier), format: "module", shortCircuit: true };
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      if (!url.startsWith(scheme)) return nextLoad(url, context);
      return { source: sources.get(decodeURIComponent(url.slice(scheme.length)))!, format: "module", shortCircuit: true };
    },
  });
  const alias = (await import("plugin:metrics" as string)) as Record<string, any>;
  const client = (await import("plugin:metrics/client" as string)) as Record<string, any>;
  const format = (await import("plugin:metrics/format" as string)) as Record<string, any>;
  assert.deepEqual(Object.keys(alias).sort(), Object.keys(client).sort()); // exactly the first module's members
  assert.equal("tidy" in alias, false); // the second module's members do not flatten into the alias
  assert.equal(alias.default, client.default);
  assert.deepEqual(new alias.default().export(" 7d "), { plugin: "metrics", fn: "export_all", params: { range: "7d" } });
  format.other(); // the sibling's import by full name reaches the same instance as the alias
  assert.equal(alias.calls, 2);
  assert.equal(client.calls, 2);
  assert.deepEqual(exportedNames(set.modules.get("plugin:metrics/format")!), ["tidy", "other"]);
});

test("importing another plugin's module fails the plugin with file, line and code", () => {
  const dir = pluginDir({ "client.js": 'export const a = 1;\n\nimport { b } from "plugin:reports/client";\n' });
  const built = buildClientModules("metrics", [{ file: "client.js", stem: "client" }], dir.readFile);
  assert.equal(built.ok, false);
  assert.deepEqual(!built.ok && built.problems.map((p) => [p.file, p.line, p.column, p.code]), [["client.js", 3, 19, "MODULE_NOT_ALLOWED"]]);
  assert.match(!built.ok ? built.problems[0]!.message : "", /self-contained.*plugin:reports\/client/);
});

test("non-self-contained imports are refused: the alias, libs, Node APIs, lib scripts, computed import()", () => {
  for (const line of [
    'import * as me from "plugin:metrics";',
    'import { x } from "plugin:metrics/calc";',
    'import fs from "node:fs";',
    'import { d } from "lib:dates";',
    "export const load = (n) => import(n);",
  ]) {
    const built = buildClientModules("metrics", [{ file: "client.js", stem: "client" }, { file: "b.js", stem: "b" }], (f) => (f === "b.js" ? "export {};" : line));
    assert.equal(built.ok, false, line);
    assert.equal(!built.ok && built.problems[0]?.file, "client.js", line);
  }
});

test("a missing file fails the whole plugin; the other files are still read and checked", () => {
  const dir = pluginDir({ "client.js": "export const a = 1;", "broken.js": "export const b = ;" });
  const built = buildClientModules(
    "metrics",
    [{ file: "client.js", stem: "client" }, { file: "gone.js", stem: "gone" }, { file: "broken.js", stem: "broken" }],
    dir.readFile,
  );
  assert.equal(built.ok, false);
  assert.deepEqual(dir.reads, ["client.js", "gone.js", "broken.js"]);
  assert.deepEqual(!built.ok && built.problems.map((p) => [p.file, p.code]), [["gone.js", "MODULE_NOT_FOUND"], ["broken.js", "SYNTAX_ERROR"]]);
  assert.match(!built.ok ? built.problems[0]!.message : "", /ENOENT/);
  assert.doesNotMatch(!built.ok ? built.problems[0]!.message : "", new RegExp(os.tmpdir().replace(/[\\^$.*+?()[\]{}|]/g, "\\$&"))); // no host path
});

test("a broken module fails the plugin naming its file and line", () => {
  const dir = pluginDir({ "client.js": "export const a = 1;", "format.ts": "export function f(a: number) {\n  return a +;\n}\n" });
  const built = buildClientModules("metrics", [{ file: "client.js", stem: "client" }, { file: "format.ts", stem: "format" }], dir.readFile);
  assert.equal(built.ok, false);
  const problem = !built.ok ? built.problems[0] : undefined;
  assert.equal(problem?.file, "format.ts");
  assert.equal(problem?.line, 2);
  assert.equal(problem?.code, "SYNTAX_ERROR");
  const enumPlugin = buildClientModules("metrics", [{ file: "e.ts", stem: "e" }], () => "\nexport enum E { A }");
  assert.deepEqual(!enumPlugin.ok && enumPlugin.problems.map((p) => [p.file, p.line, p.code]), [["e.ts", 2, "TS_UNSUPPORTED_SYNTAX"]]);
});

test("malformed declarations are refused before any file is read", () => {
  const reads: string[] = [];
  const readFile = (f: string) => (reads.push(f), "export {};");
  const cases: [string, { file: string; stem: string }[], RegExp][] = [
    ["metrics", [{ file: "a.js", stem: "a-b" }], /must be an identifier/],
    ["metrics", [{ file: "a.js", stem: "a" }, { file: "b.js", stem: "a" }], /declared twice/],
    ["metrics", [{ file: "a.py", stem: "a" }], /\.js or \.ts/],
    ["metrics", [{ file: "../other/client.js", stem: "client" }], /inside the plugin's folder/],
    ["metrics", [{ file: "/etc/client.js", stem: "client" }], /inside the plugin's folder/],
    ["Bad/Name", [{ file: "a.js", stem: "a" }], /plugin name/],
    ["metrics", [], /no client modules/],
  ];
  for (const [name, exports, reason] of cases) {
    const built = buildClientModules(name, exports, readFile);
    assert.equal(built.ok, false, reason.source);
    assert.equal(!built.ok && built.problems[0]?.code, "EXPORT_INVALID");
    assert.match(!built.ok ? built.problems[0]!.message : "", reason);
  }
  assert.deepEqual(reads, []);
});
