import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8" onload="alert(1)"><script>alert(2)</script><rect width="8" height="8" fill="teal"/></svg>`;

describe("plugin navigation: menus, field handlers, icons and logos per user; disabled plugins", () => {
  let t: TestApp;
  let admin: string, editor: string, plain: string;

  before(async () => {
    const root = tempDir();
    writePlugin(root, "cms", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.3.0"
        permissions = ["edit", "lookup"]
        icons = ["icons/page.svg"]
        logo_light = "logo.svg"
        logo_dark = "logo.svg"
        [[tool.knot.handlers]]
        handler = "find_page"
        permission = "lookup"
        [[tool.knot.menus]]
        label = "Pages"
        url = "/pages/cms/list"
        icon = "icons/page.svg"
        [[tool.knot.menus]]
        label = "Editor"
        url = "https://cms.example/edit"
        permission = "edit"
        [[tool.knot.field_handlers]]
        label = "Pick a page"
        handler = "find_page"
        permission = "edit"
      `) + "export function find_page() { return []; }\n",
      "icons/page.svg": ICON,
      "logo.svg": ICON,
    });
    writePlugin(root, "old", { "main.js": manifest(`[tool.knot]\nversion = "1.0.0"\n[[tool.knot.handlers]]\nhandler = "ping"`) + "export function ping() { return 'pong'; }\n" });
    t = await startApp({ pluginsDir: root, config: { plugins: { old: { enabled: false }, nosuch: { a: 1 } } } });
    admin = (await t.userWithToken("root", { admin: true })).token;
    editor = (await t.userWithToken("ed", { grants: ["plugin.cms.edit", "plugin.cms.lookup"] })).token;
    plain = (await t.userWithToken("carol")).token;
  });
  after(() => t.close());

  it("lists each menu and field handler only to users who pass its gate", async () => {
    const forPlain = await request(`${t.url}/api/plugins/navigation`, plain);
    assert.equal(forPlain.status, 200);
    const [cms] = forPlain.body.plugins;
    assert.equal(cms.name, "cms");
    assert.deepEqual(cms.menus, [{ label: "Pages", url: "/pages/cms/list", icon: "/api/plugins/cms/assets/icons%2Fpage.svg" }]);
    assert.deepEqual(cms.fieldHandlers, []);
    assert.equal(cms.logoLight, "/api/plugins/cms/assets/logo.svg");
    const forEditor = (await request(`${t.url}/api/plugins/navigation`, editor)).body.plugins[0];
    assert.deepEqual(forEditor.menus.map((m: { label: string }) => m.label), ["Pages", "Editor"]);
    assert.deepEqual(forEditor.fieldHandlers, [{ label: "Pick a page", handler: "find_page", url: "/plugins/cms/find_page" }]);
  });

  it("a field handler needs its handler's gate too, not only its own permission", async () => {
    const onlyEdit = (await t.userWithToken("half", { grants: ["plugin.cms.edit"] })).token;
    assert.deepEqual((await request(`${t.url}/api/plugins/navigation`, onlyEdit)).body.plugins[0].fieldHandlers, []);
  });

  it("serves icons and logos sanitised, as SVG under a CSP that forbids everything; unknown files are 404", async () => {
    const res = await fetch(`${t.url}/api/plugins/cms/assets/icons%2Fpage.svg`, { headers: { authorization: `Bearer ${plain}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "image/svg+xml; charset=utf-8");
    assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    const svg = await res.text();
    assert.match(svg, /<rect width="8" height="8" fill="teal"/);
    assert.doesNotMatch(svg, /script|onload/);
    for (const file of ["main.js", "..%2Fcms%2Fmain.js", "icons%2Fnope.svg"]) {
      assert.equal((await request(`${t.url}/api/plugins/cms/assets/${file}`, plain)).status, 404, file);
    }
    assert.equal((await request(`${t.url}/api/plugins/cms/assets/logo.svg`, null)).status, 401);
  });

  it("admins see every key and the disabled plugin in /api/plugins; the disabled plugin's handlers are unreachable; a stray table warns", async () => {
    const res = await request(`${t.url}/api/plugins`, admin);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.disabled, ["old"]);
    const cms = res.body.loaded.find((p: { name: string }) => p.name === "cms");
    assert.equal(cms.menus.length, 2);
    assert.deepEqual(cms.fieldHandlers.map((f: { handler: string }) => f.handler), ["find_page"]);
    assert.equal(cms.logoDark, "logo.svg");
    assert.ok(res.body.warnings.some((w: string) => w.includes("[plugins.nosuch] names no installed plugin")));
    assert.equal((await request(`${t.url}/plugins/old/ping`, admin)).status, 404);
    assert.equal((await request(`${t.url}/api/plugins/navigation`, admin)).body.plugins.some((p: { name: string }) => p.name === "old"), false);
  });
});
