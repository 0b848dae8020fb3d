import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { loadPlugins } from "../../src/plugins/loader.ts";
import { MAX_SVG_BYTES } from "../../src/plugins/plugin-assets.ts";
import { sanitizeSvg } from "../../src/plugins/svg-sanitizer.ts";
import { manifest, tempDir, writePlugin } from "../helpers/fixtures.ts";

const load = (root: string, pluginConfig = {}) => loadPlugins({ root, runtimeVersion: "0.1.0", pluginConfig });

function versioned(root: string, name: string, version: string, dependencies: string[] = []): void {
  writePlugin(root, name, {
    "main.js": manifest(`
      [tool.knot]
      version = "${version}"
      dependencies = ${JSON.stringify(dependencies)}
      [[tool.knot.handlers]]
      handler = "ping"
    `) + "export function ping() { return 1; }\n",
  });
}

const HOSTILE_SVG = `<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/passwd">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">
  <script>alert(2)</script>
  <style>@import url(https://evil.example/x.css);</style>
  <foreignObject><iframe src="https://evil.example"></iframe></foreignObject>
  <a href="javascript:alert(3)"><circle cx="5" cy="5" r="4" fill="url(#g)" onclick="alert(4)"/></a>
  <use href="https://evil.example/sprite.svg#a" xlink:href="https://evil.example/s.svg#a"/>
  <image href="https://evil.example/track.png"/>
  <path d="M0 0L9 9" fill="url(https://evil.example/f)" stroke="red" style="background:url(https://evil.example/b)"/>
  <linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient>
</svg>`;

describe("plugin loader: navigation assets, dependencies and config tables", () => {
  it("sanitises icons and logos: no script, handler, external reference or style survives; drawing does", () => {
    const clean = sanitizeSvg(HOSTILE_SVG);
    assert.ok(clean);
    for (const banned of [/script/i, /onload|onclick/i, /javascript:/i, /evil\.example/, /foreignObject|iframe/i, /<style|style=/i, /href/i, /<image/i, /ENTITY|DOCTYPE/i]) {
      assert.doesNotMatch(clean, banned);
    }
    assert.match(clean, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 10 10">/);
    assert.match(clean, /<circle cx="5" cy="5" r="4" fill="url\(#g\)"/);
    assert.match(clean, /<path d="M0 0L9 9" stroke="red"/);
    assert.equal(sanitizeSvg("<html><body>no svg</body></html>"), null);
  });

  it("loads declared icons and logos sanitised; a missing, oversized, escaping or non-SVG file fails the plugin naming the key", async () => {
    const root = tempDir();
    const withIcons = (name: string, files: Record<string, string>, keys: string) => writePlugin(root, name, {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"
        ${keys}
      `) + "export function a() {}\n",
      ...files,
    });
    withIcons("good", { "icons/chart.svg": HOSTILE_SVG, "logo.svg": "<svg viewBox='0 0 1 1'><rect width='1' height='1'/></svg>" }, 'icons = ["icons/chart.svg"]\nlogo_light = "logo.svg"\nlogo_dark = "logo.svg"');
    withIcons("missing", {}, 'icons = ["nope.svg"]');
    withIcons("huge", { "big.svg": `<svg>${" ".repeat(MAX_SVG_BYTES)}</svg>` }, 'logo_dark = "big.svg"');
    withIcons("notsvg", { "a.svg": "<html>hello</html>" }, 'icons = ["a.svg"]');
    withIcons("escape", {}, 'icons = ["link.svg"]');
    fs.writeFileSync(path.join(root, "secret.svg"), "<svg><rect width='1' height='1'/></svg>");
    fs.symlinkSync(path.join(root, "secret.svg"), path.join(root, "escape", "link.svg"));

    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["good"]);
    const good = registry.loaded.get("good")!;
    assert.deepEqual([...good.assets.keys()], ["icons/chart.svg", "logo.svg"]);
    assert.doesNotMatch(good.assets.get("icons/chart.svg")!, /script|onload|evil/);
    const reasons = Object.fromEntries(registry.failed.map((f) => [f.name, f.reason]));
    assert.match(reasons.missing ?? "", /plugin "missing": tool\.knot\.icons\[0\] "nope\.svg" does not exist/);
    assert.match(reasons.huge ?? "", /plugin "huge": tool\.knot\.logo_dark "big\.svg" is \d+ bytes; .* at most 65536 bytes/);
    assert.match(reasons.notsvg ?? "", /plugin "notsvg": tool\.knot\.icons\[0\] "a\.svg" is not an SVG image/);
    assert.match(reasons.escape ?? "", /plugin "escape": tool\.knot\.icons\[0\] "link\.svg" leads outside the plugin folder/);
  });

  it("dependencies: met ones load; a missing, old or failed dependency fails the dependent naming it, transitively", async () => {
    const root = tempDir();
    versioned(root, "cms", "1.4.0");
    versioned(root, "blog", "2.0.0", ["cms>=1.2"]);
    versioned(root, "shop", "1.0.0", ["cms>=2"]);
    versioned(root, "wiki", "1.0.0", ["search"]);
    versioned(root, "feeds", "1.0.0", ["wiki"]);
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()].sort(), ["blog", "cms"]);
    const byName = Object.fromEntries(registry.failed.map((f) => [f.name, f]));
    assert.equal(byName.shop?.problems[0]?.code, "DEPENDENCY_MISSING");
    assert.match(byName.shop?.reason ?? "", /plugin "shop": needs plugin "cms" >=2 \(main\.js line \d+\), but version 1\.4\.0 is installed/);
    assert.match(byName.wiki?.reason ?? "", /plugin "wiki": needs plugin "search" .*which is not loaded/);
    assert.match(byName.feeds?.reason ?? "", /plugin "feeds": needs plugin "wiki" .*which is not loaded/);
  });

  it("enabled = false disables a plugin (listed, nothing reachable, dependents fail); a table naming no plugin is a warning", async () => {
    const root = tempDir();
    versioned(root, "cms", "1.4.0");
    versioned(root, "blog", "2.0.0", ["cms"]);
    writePlugin(root, "tooly", {
      "main.js": manifest(`[tool.knot]\nversion = "1.0.0"\nexport = ["client.js"]\n[[tool.knot.mcp_tools]]\nname = "tooly_run"\ndescription = "d"\nhandler = "run"\n[[tool.knot.pages]]\npath = "/p"\nhandler = "run"\nlabel = "P"`) + "export function run() { return 1; }\n",
      "client.js": 'import { call } from "knot:plugin";\nexport const go = () => call("tooly", "run");\n',
    });
    const registry = await load(root, { cms: { enabled: false }, tooly: { enabled: false }, cmss: { url: "x" } });
    assert.deepEqual(registry.disabled, ["cms", "tooly"]);
    assert.equal(registry.mcpTool("tooly_run"), null, "a disabled plugin's MCP tool is not listed or callable");
    assert.equal(registry.pages().length, 0);
    assert.equal(registry.clientModule("plugin:tooly"), null);
    assert.equal(registry.loaded.has("cms"), false);
    assert.equal(registry.handler("cms", "ping"), null);
    assert.match(registry.failed.find((f) => f.name === "blog")?.reason ?? "", /needs plugin "cms".*not loaded \(not installed, disabled or failed\)/);
    assert.ok(registry.warnings.some((w) => /\[plugins\.cmss\] names no installed plugin/.test(w)), registry.warnings.join("\n"));
    assert.ok(!registry.warnings.some((w) => /\[plugins\.cms\]/.test(w)));
  });

  it("a lib's [tool.knot.lib] version is read; a malformed lib block fails the plugin naming file, key and line", async () => {
    const root = tempDir();
    const lib = (version: string, extra = "") => `// A lib.\n// /// script\n// [tool.knot.lib]\n// version = ${version}\n${extra}// ///\nexport const x = 1;\n`;
    const withLibs = (name: string, libs: Record<string, string>) => writePlugin(root, name, {
      "main.js": manifest('[tool.knot]\nversion = "1.0.0"') + "export function a() {}\n",
      ...Object.fromEntries(Object.entries(libs).map(([file, text]) => [`libs/${file}`, text])),
    });
    withLibs("good", { "calc.js": lib('"1.2.0"'), "plain.js": "export const y = 2;\n" });
    withLibs("badversion", { "calc.js": lib('"1.2"') });
    withLibs("typo", { "calc.js": lib('"1.2.0"', "// verison = 2\n") });
    withLibs("nolib", { "calc.js": "// /// script\n// [tool.knot]\n// version = \"1.0.0\"\n// ///\n" });
    const registry = await load(root);
    assert.deepEqual([...registry.loaded.keys()], ["good"]);
    assert.deepEqual([...registry.loaded.get("good")!.libs], [["calc", "1.2.0"], ["plain", null]]);
    const reasons = Object.fromEntries(registry.failed.map((f) => [f.name, f.reason]));
    assert.equal(reasons.badversion, 'plugin "badversion": libs/calc.js tool.knot.lib.version must be a semver version like "1.0.0" (got "1.2") (line 4)');
    assert.equal(reasons.typo, 'plugin "typo": libs/calc.js tool.knot.lib.verison is not a known key (expected one of: version) (line 5)');
    assert.match(reasons.nolib ?? "", /plugin "nolib": libs\/calc\.js tool\.knot\.version is not a known key \(expected one of: lib\) \(line 3\)/);
  });
});
