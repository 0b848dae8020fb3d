/**
 * Plugin menus and logos in the web UI's top bar, in a real browser: a user who passes a menu's
 * gate sees it, one who does not never does; logos and icons are images of the sanitised SVG
 * (an SVG's script cannot run in an <img>, and the server strips it anyway).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { manifest, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { ensureUiBuilt, launchBrowser, signIn, startApp } from "./browser-helpers.ts";

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10" onload="globalThis.pwned=1"><script>globalThis.pwned=2</script><rect width="20" height="10" fill="orange"/></svg>`;

let app: TestApp;
let browser: Browser;

before(async () => {
  await ensureUiBuilt();
  const root = tempDir();
  writePlugin(root, "cms", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["edit"]
      icons = ["page.svg"]
      logo_dark = "logo.svg"
      [[tool.knot.menus]]
      label = "All pages"
      url = "/#/tools"
      icon = "page.svg"
      [[tool.knot.menus]]
      label = "Edit site"
      url = "https://cms.example/edit"
      permission = "edit"
    `) + "export function a() {}\n",
    "logo.svg": LOGO,
    "page.svg": LOGO,
  });
  app = await startApp({ pluginsDir: root });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
});

test("menus and the plugin logo show to users who pass each gate, and only to them", async () => {
  const editor = await signIn(browser, app, (await app.userWithToken("ed", { grants: ["plugin.cms.edit"] })).token);
  const menus = editor.page.getByRole("group", { name: "Plugin menus" });
  await menus.getByRole("link", { name: "Edit site" }).waitFor();
  assert.equal(await menus.getByRole("link", { name: "Edit site" }).getAttribute("rel"), "noopener noreferrer");
  assert.equal(await menus.getByRole("link", { name: "All pages" }).getAttribute("href"), "/#/tools");
  const logo = menus.getByRole("img", { name: "cms" });
  assert.equal(await logo.getAttribute("src"), "/api/plugins/cms/assets/logo.svg");
  await editor.page.waitForFunction(() => {
    const img = (globalThis as any).document.querySelector("img.plugin-logo");
    return img && img.complete && img.naturalWidth > 0;
  });
  assert.equal(await editor.page.evaluate(() => (globalThis as any).pwned ?? null), null);
  await editor.context.close();

  const plain = await signIn(browser, app, (await app.userWithToken("carol")).token);
  const plainMenus = plain.page.getByRole("group", { name: "Plugin menus" });
  await plainMenus.getByRole("link", { name: "All pages" }).waitFor();
  assert.equal(await plainMenus.getByRole("link", { name: "Edit site" }).count(), 0);
  await plain.context.close();
});
