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
    plugin(root, "alpha", `version = "1.0.0"\n${search}`, 'throw new Error("alpha is broken");\n');
    plugin(root, "beta", `version = "1.0.0"\n${search}`, "export function run() { return 'beta'; }\n");
    plugin(root, "gamma", 'version = "1.0.0"\ndependencies = ["beta"]');
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()].sort(), ["beta", "gamma"]);
    assert.equal(registry.mcpTool("search")?.plugin.name, "beta");
    assert.deepEqual(registry.failed.map((f) => [f.name, f.problems.map((p) => p.code)]), [["alpha", ["PLUGIN_LOAD_FAILED"]]]);
  });
});
