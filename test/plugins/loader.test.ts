import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { loadPlugins } from "../../src/plugins/loader.ts";
import { manifest, tempDir, writePlugin } from "../helpers/fixtures.ts";

const load = (root: string, pluginConfig = {}) => loadPlugins({ root, runtimeVersion: "0.1.0", pluginConfig });

function toolPlugin(root: string, name: string, tool: string): void {
  writePlugin(root, name, {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      [[tool.knot.mcp_tools]]
      name = "${tool}"
      description = "A tool."
      handler = "run"
    `) + `export function run() { return "${name}"; }\n`,
  });
}

describe("plugin loader", () => {
  it("qualifies permission ids with the plugin name, for gates too", async () => {
    const root = tempDir();
    writePlugin(root, "metrics", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.2.3"
        permissions = ["export"]
        [[tool.knot.handlers]]
        handler = "export_all"
        permission = "export"
      `) + "export function export_all() { return 1; }\n",
    });
    const registry = await load(root);
    const plugin = registry.loaded.get("metrics");
    assert.ok(plugin);
    assert.deepEqual(plugin.manifest.permissions, ["plugin.metrics.export"]);
    assert.equal(registry.handler("metrics", "export_all")?.decl.permission, "plugin.metrics.export");
  });

  it("two plugins exposing one tool name: the first by name wins, the later fails naming the winner", async () => {
    const root = tempDir();
    toolPlugin(root, "zeta", "shared_tool");
    toolPlugin(root, "alpha", "shared_tool");
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["alpha"]);
    assert.equal(registry.mcpTool("shared_tool")?.plugin.name, "alpha");
    const [failure] = registry.failed;
    assert.equal(failure?.name, "zeta");
    assert.equal(failure?.problems[0]?.code, "PLUGIN_COLLISION");
    assert.match(failure?.reason ?? "", /"shared_tool".*plugin "alpha"/);
  });

  it("a failing plugin registers nothing while the others still load", async () => {
    const root = tempDir();
    toolPlugin(root, "good", "good_tool");
    writePlugin(root, "badmeta", { "main.js": manifest(`[tool.knot]\nversion = "nope"`) + "export function x() {}\n" });
    writePlugin(root, "throws", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"
        [[tool.knot.mcp_tools]]
        name = "throwing_tool"
        description = "never registered"
        handler = "run"
      `) + `export function run() {}\nthrow new Error("boom at import");\n`,
    });
    writePlugin(root, "missing", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"
        [[tool.knot.handlers]]
        handler = "absent"
      `),
    });
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["good"]);
    const reasons = Object.fromEntries(registry.failed.map((f) => [f.name, f]));
    assert.equal(reasons.badmeta?.problems[0]?.code, "METADATA_INVALID");
    assert.equal(reasons.throws?.problems[0]?.code, "PLUGIN_LOAD_FAILED");
    assert.match(reasons.throws?.reason ?? "", /boom at import/);
    assert.match(reasons.missing?.reason ?? "", /"absent".*not an exported function/);
    assert.equal(registry.mcpTool("throwing_tool"), null);
    assert.equal(registry.handler("missing", "absent"), null);
  });

  it("a plugin folder the loader cannot read fails alone, named with the file; the others still load", async () => {
    const root = tempDir();
    toolPlugin(root, "good", "good_tool");
    toolPlugin(root, "libfile", "libfile_tool");
    fs.writeFileSync(path.join(root, "libfile", "libs"), "not a folder");
    toolPlugin(root, "libdir", "libdir_tool");
    fs.mkdirSync(path.join(root, "libdir", "libs", "util.js"), { recursive: true });
    fs.mkdirSync(path.join(root, "maindir", "main.js"), { recursive: true });
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["good"]);
    const reasons = Object.fromEntries(registry.failed.map((f) => [f.name, f]));
    assert.deepEqual(Object.keys(reasons).sort(), ["libdir", "libfile", "maindir"]);
    for (const [name, failure] of Object.entries(reasons)) {
      assert.equal(failure.problems[0]?.code, "PLUGIN_LOAD_FAILED", name);
      assert.match(failure.reason, new RegExp(`plugin "${name}": .*${name}/(libs|main\\.js)`), failure.reason);
    }
  });

  it("skips loose files, folders without main.js and bad folder names with a warning", async () => {
    const root = tempDir();
    toolPlugin(root, "good", "good_tool");
    fs.writeFileSync(path.join(root, "stray.js"), "export {}");
    fs.mkdirSync(path.join(root, "empty"));
    toolPlugin(root, "Bad Name", "other_tool");
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["good"]);
    assert.equal(registry.failed.length, 0);
    assert.equal(registry.warnings.length, 3);
    assert.ok(registry.warnings.some((w) => w.includes("stray.js") && w.includes("loose file")));
    assert.ok(registry.warnings.some((w) => w.includes("empty") && w.includes("no main.js")));
    assert.ok(registry.warnings.some((w) => w.includes("Bad Name")));
  });

  it("requires declared config keys from [plugins.<name>] and hands over a frozen copy", async () => {
    const root = tempDir();
    writePlugin(root, "needs", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"
        config = ["url", "key"]
        [[tool.knot.handlers]]
        handler = "run"
      `) + "export function run(request) { return request.config; }\n",
    });
    const missing = await load(root, { needs: { url: "http://x" } });
    assert.equal(missing.failed[0]?.problems[0]?.code, "CONFIG_INVALID");
    assert.match(missing.failed[0]?.reason ?? "", /"key".*\[plugins\.needs\]/);
    const ok = await load(root, { needs: { url: "http://x", key: "k" } });
    assert.deepEqual(ok.loaded.get("needs")?.config, { url: "http://x", key: "k" });
    assert.ok(Object.isFrozen(ok.loaded.get("needs")?.config));
  });

  it("a declared export file that is missing fails the plugin at load", async () => {
    const root = tempDir();
    writePlugin(root, "sdk", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"
        export = ["client.js"]
      `),
    });
    const registry = await load(root);
    assert.equal(registry.loaded.size, 0);
    assert.match(registry.failed[0]?.reason ?? "", /client\.js/);
  });

  it("a missing plugins folder is a warning, not a crash", async () => {
    const registry = await load(path.join(tempDir(), "absent"));
    assert.equal(registry.loaded.size, 0);
    assert.match(registry.warnings[0] ?? "", /does not exist/);
  });
});
