import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadPlugins } from "../../src/plugins/loader.ts";
import { manifest, tempDir, writePlugin } from "../helpers/fixtures.ts";

const load = (root: string) => loadPlugins({ root, runtimeVersion: "0.1.0" });

/** Top-level code of fixture plugins records here that it ran (keyed by the test's root). */
const ran = (root: string): string[] => ((globalThis as Record<string, unknown>)[`ran:${root}`] as string[] | undefined) ?? [];
const recordRun = (root: string, name: string) => `(globalThis[${JSON.stringify(`ran:${root}`)}] ??= []).push(${JSON.stringify(name)});\n`;

function plugin(root: string, name: string, toml: string, code = ""): void {
  writePlugin(root, name, { "main.js": manifest(`[tool.knot]\n${toml}`) + recordRun(root, name) + code });
}

const problemsOf = (registry: Awaited<ReturnType<typeof load>>, name: string) => registry.failed.find((f) => f.name === name)?.problems ?? [];

describe("plugin loader: what is settled before any plugin code runs", () => {
  it("a plugin whose dependency is unmet does not hold its MCP tool names: the next plugin declaring one loads", async () => {
    const root = tempDir();
    plugin(root, "zeta", 'version = "1.0.0"');
    plugin(root, "alpha", 'version = "1.0.0"\ndependencies = ["zeta>=2"]\n[[tool.knot.mcp_tools]]\nname = "search"\ndescription = "d"\nhandler = "run"', "export function run() { return 'alpha'; }\n");
    plugin(root, "beta", 'version = "1.0.0"\n[[tool.knot.mcp_tools]]\nname = "search"\ndescription = "d"\nhandler = "run"', "export function run() { return 'beta'; }\n");
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()].sort(), ["beta", "zeta"]);
    assert.equal(registry.mcpTool("search")?.plugin.name, "beta");
    assert.deepEqual(problemsOf(registry, "alpha").map((p) => p.code), ["DEPENDENCY_MISSING"]);
    assert.match(registry.failed.find((f) => f.name === "alpha")?.reason ?? "", /plugin "alpha": needs plugin "zeta" >=2 \(main\.js line \d+\), but version 1\.0\.0 is installed/);
    assert.ok(!ran(root).includes("alpha"), "alpha's main.js was imported though its dependency was unmet");
  });

  it("an unmet dependency is reported as such, before the dependent's imports of it are tried", async () => {
    const root = tempDir();
    plugin(root, "cms", 'version = "1.0.0"');
    plugin(root, "blog", 'version = "1.0.0"\ndependencies = ["cms>=2"]\n[[tool.knot.handlers]]\nhandler = "run"', 'import { render } from "plugin:cms/api";\nexport function run() { return render(); }\n');
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["cms"]);
    assert.deepEqual(problemsOf(registry, "blog").map((p) => p.code), ["DEPENDENCY_MISSING"]);
    assert.ok(!ran(root).includes("blog"));
  });

  it("a plugin that depends on a collision's loser fails too, and the loser's code never runs", async () => {
    const root = tempDir();
    plugin(root, "aa", 'version = "1.0.0"\n[[tool.knot.mcp_tools]]\nname = "search"\ndescription = "d"\nhandler = "run"', "export function run() {}\n");
    plugin(root, "bb", 'version = "1.0.0"\n[[tool.knot.mcp_tools]]\nname = "search"\ndescription = "d"\nhandler = "run"', "export function run() {}\n");
    plugin(root, "cc", 'version = "1.0.0"\ndependencies = ["bb"]');
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["aa"]);
    assert.deepEqual(problemsOf(registry, "bb").map((p) => p.code), ["PLUGIN_COLLISION"]);
    assert.deepEqual(problemsOf(registry, "cc").map((p) => p.code), ["DEPENDENCY_MISSING"]);
    assert.deepEqual(ran(root), ["aa"]);
  });

  it("a collision's winner that fails at import hands the name on: the loser is imported then, and its dependents load", async () => {
    const root = tempDir();
    const search = '[[tool.knot.mcp_tools]]\nname = "search"\ndescription = "d"\nhandler = "run"';
    plugin(root, "alpha", `version = "1.0.0"\n${search}`, 'export function run() {}\nthrow new Error("alpha is broken");\n');
    plugin(root, "beta", `version = "1.0.0"\n${search}`, "export function run() { return 'beta'; }\n");
    plugin(root, "gamma", 'version = "1.0.0"\ndependencies = ["beta"]');
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()].sort(), ["beta", "gamma"]);
    assert.equal(registry.mcpTool("search")?.plugin.name, "beta");
    assert.deepEqual(registry.failed.map((f) => [f.name, f.problems.map((p) => p.code)]), [["alpha", ["PLUGIN_LOAD_FAILED"]]]);
  });
});

describe("plugin loader: plugins whose code imports a plugin that fails", () => {
  const importsBb = (root: string, name: string) => plugin(root, name, 'version = "1.0.0"\n[[tool.knot.handlers]]\nhandler = "run"', 'import { secret } from "plugin:bb";\nexport function run() { return secret; }\n');

  it("a handler main.js does not export is found before import: the plugin's code never runs, its importers fail whatever their folder order", async () => {
    const root = tempDir();
    importsBb(root, "aa");
    plugin(root, "bb", 'version = "1.0.0"\n[[tool.knot.handlers]]\nhandler = "absent"', "export const secret = 42;\n");
    importsBb(root, "cc");
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], []);
    assert.match(registry.failed.find((f) => f.name === "bb")?.reason ?? "", /plugin "bb": tool\.knot\.handlers handler "absent" \(main\.js line \d+\) is not an exported function of main\.js/);
    for (const name of ["aa", "cc"]) assert.match(registry.failed.find((f) => f.name === name)?.reason ?? "", /plugin "aa"|plugin "cc"/);
    for (const name of ["aa", "cc"]) assert.match(registry.failed.find((f) => f.name === name)?.reason ?? "", /plugin:bb.*plugin "bb" is not loaded/, name);
    assert.ok(!ran(root).includes("bb"), "bb's top-level code ran");
  });

  it("a plugin that fails only once imported (a declared handler exported as a non-function) fails every plugin whose code imported it, transitively", async () => {
    const root = tempDir();
    importsBb(root, "aa");
    plugin(root, "bb", 'version = "1.0.0"\n[[tool.knot.handlers]]\nhandler = "run"', "export const secret = 42;\nexport const run = 'not a function';\n");
    importsBb(root, "cc");
    plugin(root, "a0", 'version = "1.0.0"', 'import { run } from "plugin:aa";\nexport const again = run;\n'); // imported first: reaches bb through aa
    plugin(root, "ee", 'version = "1.0.0"');
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["ee"]);
    const byName = Object.fromEntries(registry.failed.map((f) => [f.name, f]));
    assert.equal(byName.bb?.problems[0]?.code, "METADATA_INVALID");
    assert.equal(byName.aa?.problems[0]?.code, "PLUGIN_LOAD_FAILED");
    assert.equal(byName.aa?.reason, 'plugin "aa": main.js line 8 imports plugin:bb, which failed to load (its top-level code may already have run)');
    assert.equal(byName.aa?.problems[0]?.line, 8);
    assert.match(byName.cc?.reason ?? "", /plugin "cc": .*plugin:bb/);
    assert.equal(byName.a0?.reason, 'plugin "a0": main.js line 6 imports plugin:aa, which failed to load (its top-level code may already have run)');
  });

  it("handlers are found by main.js's syntax when it can tell: re-exports, destructured and renamed exports pass; export * is left to the import", async () => {
    const root = tempDir();
    const handlers = ["a", "b", "c", "d"].map((h) => `[[tool.knot.handlers]]\nhandler = "${h}"`).join("\n");
    plugin(root, "shapes", `version = "1.0.0"\n${handlers}`, 'export const { a, b: [b] } = { a: () => 1, b: [() => 2] };\nfunction inner() {}\nexport { inner as c };\nexport { d } from "./more.js";\n');
    writePlugin(root, "shapes", { "more.js": "export function d() {}\n" });
    plugin(root, "star", 'version = "1.0.0"\n[[tool.knot.handlers]]\nhandler = "e"', 'export * from "./more.js";\n');
    writePlugin(root, "star", { "more.js": "export function e() {}\n" });
    plugin(root, "starless", 'version = "1.0.0"\n[[tool.knot.handlers]]\nhandler = "f"', 'export * from "./more.js";\n');
    writePlugin(root, "starless", { "more.js": "export function e() {}\n" });
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["shapes", "star"]);
    assert.match(registry.failed.find((f) => f.name === "starless")?.reason ?? "", /handler "f" .*is not an exported function/);
    assert.ok(ran(root).includes("starless"), "export * can only be checked by importing");
  });
});

describe("plugin loader: MCP tool names the server keeps for itself", () => {
  it("a plugin MCP tool named like a boot tool fails at load, naming the key and line; its code never runs", async () => {
    const root = tempDir();
    plugin(root, "shadow", 'version = "1.0.0"\n[[tool.knot.mcp_tools]]\nname = "execute_tool"\ndescription = "d"\nhandler = "run"', "export function run() {}\n");
    plugin(root, "author", 'version = "1.0.0"\n[[tool.knot.mcp_tools]]\ndescription = "d"\nhandler = "list_user_tools"', "export function list_user_tools() {}\n");
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], []);
    const byName = Object.fromEntries(registry.failed.map((f) => [f.name, f]));
    assert.deepEqual(byName.shadow?.problems, [{
      code: "PLUGIN_COLLISION", where: "shadow: tool.knot.mcp_tools.name", line: 4,
      message: 'plugin "shadow": MCP tool "execute_tool" (main.js line 4) is the name of a built-in MCP tool, which every caller sees instead: rename it',
    }]);
    assert.equal(byName.author?.problems[0]?.code, "PLUGIN_COLLISION");
    assert.match(byName.author?.reason ?? "", /MCP tool "list_user_tools" \(main\.js line 4\) is the name of a built-in MCP tool/);
    assert.deepEqual(ran(root), []);
  });
});
