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
  await page.getByLabel("Cores", { exact: true }).fill("16");
  await page.getByLabel("Region", { exact: true }).selectOption("eu");
  assert.deepEqual(await page.getByLabel("Pool", { exact: true }).locator("option").allTextContents(), ["blue", "Green pool"], "dynamic options from pools_data");
  await page.getByLabel("Pool", { exact: true }).selectOption("green");
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

test("field handlers are offered next to the text fields they apply to: page forms and the run form", async () => {
  const { user, token } = await app.userWithToken("fay", { grants: ["plugin.fleet.view", "knot.tools.author"] });
  const { context, page } = await signIn(browser, app, token);
  await page.goto("/#/pages/fleet/hosts");
  await page.getByLabel("Host name").fill("db");
  await page.getByRole("group", { name: "Helpers for host" }).getByRole("button", { name: "Suggest a name" }).click();
  await page.waitForFunction(() => (globalThis as any).document.getElementById("pf1-host")?.value === "db-42<b>");
  assert.equal(await page.getByRole("group", { name: "Helpers for region" }).count(), 0, "not on selects");
  const rows = await app.app.store.queryAudit({ tool: "fleet/suggest_host" });
  assert.deepEqual(rows[0]?.args, { field: "host", value: "db" }, "the call is audited like any handler call");

  const created = await fetch(`${app.url}/api/tools`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "hello_host", code: "export default (r) => r.params.host;", parameters: [{ name: "host" }, { name: "pin", secret: true }, { name: "n", type: "int" }] }) });
  const tool = (await created.json() as any).tool;
  await page.goto(`/#/tools/${tool.id}`);
  await page.getByRole("tab", { name: "Run" }).click();
  await page.getByRole("group", { name: "Helpers for host" }).getByRole("button", { name: "Suggest a name" }).click();
  await page.waitForFunction(() => (globalThis as any).document.getElementById("arg-host")?.value === "host-42<b>");
  assert.equal(await page.getByRole("group", { name: "Helpers for pin" }).count(), 0, "never on secret fields");
  assert.equal(await page.getByRole("group", { name: "Helpers for n" }).count(), 1);
  assert.equal(user.name, "fay");
  await context.close();

  const stranger = await signIn(browser, app, (await app.userWithToken("sol", { grants: ["knot.tools.author"] })).token);
  await stranger.page.goto(`/#/tools`);
  await stranger.page.getByRole("button", { name: "New tool or lib" }).waitFor();
  const nav: any = await stranger.page.evaluate(async () => (await (await fetch("/api/plugins/navigation", { headers: { "x-knot-csrf": "1" } })).json()));
  assert.deepEqual(nav.plugins.flatMap((p: any) => p.fieldHandlers), [], "not listed to a user without the gate");
  await stranger.context.close();
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
