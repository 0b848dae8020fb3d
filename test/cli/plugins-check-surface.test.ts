/** `plugins check` on a plugin that uses every key of knot's navigation surface (issue 15). */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { manifest, tempDir, writePlugin } from "../helpers/fixtures.ts";
import { cli } from "../helpers/cli.ts";

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="4" height="4"/></svg>`;

it("a plugin using every navigation key passes plugins check; a disabled one is listed; an old dependency fails naming it", () => {
  const root = tempDir();
  writePlugin(root, "cms", {
    "main.js": manifest(`[tool.knot]\nversion = "1.4.0"\n[[tool.knot.handlers]]\nhandler = "ping"`) + "export function ping() { return 1; }\n",
    "libs/pages.js": `// /// script\n// [tool.knot.lib]\n// version = "1.4.0"\n// ///\nexport const x = 1;\n`,
  });
  writePlugin(root, "site", {
    "main.js": manifest(`
      [tool.knot]
      version = "2.0.0"
      permissions = ["edit"]
      icons = ["icons/page.svg"]
      logo_light = "logo-light.svg"
      logo_dark = "logo-dark.svg"
      dependencies = ["cms>=1.2"]
      [[tool.knot.handlers]]
      handler = "pick_page"
      [[tool.knot.menus]]
      label = "Site"
      url = "/#/pages/site/home"
      icon = "icons/page.svg"
      [[tool.knot.menus]]
      label = "Handbook"
      url = "https://handbook.example/site"
      permission = "edit"
      [[tool.knot.field_handlers]]
      label = "Pick a page"
      handler = "pick_page"
      permission = "edit"
      [[tool.knot.pages]]
      path = "/home"
      handler = "home"
      label = "Site home"
      default = true
      menu_label = "Home"
      icon = "icons/page.svg"
    `) + "export function pick_page() { return []; }\nexport function home() { return 'hi'; }\n",
    "icons/page.svg": SVG, "logo-light.svg": SVG, "logo-dark.svg": SVG,
  });
  writePlugin(root, "legacy", { "main.js": manifest(`[tool.knot]\nversion = "1.0.0"`) + "export function a() {}\n" });
  const config = path.join(tempDir(), "knot.toml");
  fs.writeFileSync(config, "[plugins.legacy]\nenabled = false\n");

  const ok = cli(["plugins", "check", root, "--config", config]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^ok site 2\.0\.0: 1 handlers, 0 MCP tools, 0 exports, 2 menus, 1 field handlers$/m);
  assert.match(ok.stdout, /^disabled legacy \(enabled = false in the server config\)$/m);

  fs.writeFileSync(path.join(root, "cms", "main.js"), manifest(`[tool.knot]\nversion = "1.1.0"`) + "export function a() {}\n");
  const old = cli(["plugins", "check", root, "--config", config]);
  assert.equal(old.code, 1);
  assert.match(old.stderr, /^site: DEPENDENCY_MISSING: plugin "site": needs plugin "cms" >=1\.2 \(main\.js line \d+\), but version 1\.1\.0 is installed$/m);
});
