/**
 * An interactive plugin page in a real browser: the form (text, number, static and dynamic
 * selects, checkbox) posts form-encoded through the CSRF-checked action route, the envelope
 * replaces the blocks and shows a toast; hostile text stays text; an off-site redirect is not
 * followed and a same-origin one is.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeFormPlugins } from "../helpers/forms-plugin.ts";
import { manifest, writePlugin } from "../helpers/fixtures.ts";
import { ensureUiBuilt, launchBrowser, screenshot, signIn, startApp } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;

before(async () => {
  await ensureUiBuilt();
  const root = tempDir();
  writeFormPlugins(root);
  // A page whose buttons answer hostile envelopes.
  writePlugin(root, "trap", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      [[tool.knot.handlers]]
      handler = "bad"
      [[tool.knot.handlers]]
      handler = "offsite"
      [[tool.knot.handlers]]
      handler = "home"
      [[tool.knot.pages]]
      path = "/trap"
      handler = "trap_page"
      label = "Trap"
    `) + `
export function trap_page() { return { blocks: [
  { type: "button", label: "Bad", action: "bad" },
  { type: "button", label: "Offsite", action: "offsite" },
  { type: "button", label: "Home", action: "home" },
] }; }
export function bad() { return { toast: "<img src=x onerror=\\"globalThis.pwned=1\\">", blocks: [{ type: "form", action: "bad", submit: "<b>x</b>", fields: [{ name: "q", label: "<img src=x onerror=\\"globalThis.pwned=2\\">" }] }] }; }
export function offsite() { return { redirect: "//evil.example/x", toast: "stay" }; }
export function home() { return { redirect: "/#/tools" }; }
`,
  });
  app = await startApp({ pluginsDir: root });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
});

test("a form page round-trips: fields post, the envelope replaces the blocks and shows a toast", async () => {
  const { context, page } = await signIn(browser, app, (await app.userWithToken("mia", { grants: ["plugin.fleet.view", "plugin.fleet.manage"] })).token);
  await page.goto("/#/pages/fleet/hosts");
  const form = page.locator("form.page-form");
  await form.waitFor();
  await page.getByLabel("Host name").fill("web-7");
  await page.getByLabel("Cores").fill("16");
  await page.getByLabel("Region").selectOption("eu");
  assert.deepEqual(await page.getByLabel("Pool").locator("option").allTextContents(), ["blue", "Green pool"], "dynamic options from pools_data");
  await page.getByLabel("Pool").selectOption("green");
  await page.getByLabel("Monitored").uncheck();
  await page.getByRole("button", { name: "Add host" }).click();
  await page.getByRole("status", { name: "Page message" }).filter({ hasText: "Added web-7" }).waitFor();
  const cells = await page.locator("table.data tbody tr").first().locator("td").allTextContents();
  assert.deepEqual(cells, ["web-7", "16", "eu", "green", "false"]);
  assert.equal(await page.getByLabel("Host name").inputValue(), "", "the new blocks' form starts afresh");
  await screenshot(page, "page-form-round-trip");
  // The button's action needs a permission this user lacks: the refusal shows, nothing else changes.
  await page.getByRole("button", { name: "Restart all" }).click();
  await page.getByRole("alert").filter({ hasText: "permission denied" }).waitFor();
  await context.close();
});

test("hostile envelopes: markup stays text, an off-site redirect is not followed, a same-origin one is", async () => {
  const { context, page } = await signIn(browser, app, (await app.userWithToken("tess")).token);
  await page.goto("/#/pages/trap/trap");
  await page.getByRole("button", { name: "Bad" }).click();
  const toast = page.getByRole("status", { name: "Page message" });
  await toast.waitFor();
  assert.equal(await toast.textContent(), '<img src=x onerror="globalThis.pwned=1">');
  assert.equal(await page.getByRole("button", { name: "<b>x</b>" }).count(), 1, "the submit text is literal");
  assert.equal(await page.locator(".plugin-page img").count(), 0, "no element was made from plugin text");
  assert.equal(await page.evaluate(() => (globalThis as any).pwned ?? null), null);

  await page.reload();
  await page.getByRole("button", { name: "Offsite" }).click();
  await page.getByRole("status", { name: "Page message" }).filter({ hasText: "stay" }).waitFor();
  assert.equal(new URL(page.url()).origin, app.url, "still on this origin");
  assert.match(await page.locator(".plugin-page .notice").last().textContent() ?? "", /redirect must be a path on this site/);

  await page.getByRole("button", { name: "Home" }).click();
  await page.waitForURL((url) => url.hash === "#/tools");
  await context.close();
});
