/**
 * The consent page groups a plugin's tools by their declared `area`, in a real browser: the person
 * sees each area with its tools (and whether they change things), lends one area, and the
 * connection carries exactly that area's targets.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { manifest, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { authorizeUrl, pkcePair, registerClient } from "../oauth/helpers.ts";
import { ensureUiBuilt, launchBrowser, screenshot, signIn, startApp } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;

before(async () => {
  await ensureUiBuilt();
  const root = tempDir();
  writePlugin(root, "crm", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["edit"]
      [[tool.knot.mcp_tools]]
      name = "list_people"
      description = "List people."
      handler = "list_people"
      area = "people"
      [[tool.knot.mcp_tools]]
      name = "rename_page"
      description = "Rename a page."
      handler = "rename_page"
      permission = "edit"
      write = true
      area = "content"
    `) + "export function list_people() { return []; }\nexport function rename_page() { return 'ok'; }\n",
  });
  app = await startApp({ pluginsDir: root });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await app?.close();
});

test("areas are shown with their tools; lending one lends exactly its targets", async () => {
  const { user, token } = await app.userWithToken("pat", { grants: ["knot.mcp", "plugin.crm.edit"] });
  const { context, page } = await signIn(browser, app, token);
  const client = (await registerClient(app.url, { client_name: "Area Assistant" })).body;
  await page.goto(authorizeUrl(app.url, { client_id: client.client_id, code_challenge: pkcePair().challenge }));
  await page.getByRole("heading", { name: "Connect Area Assistant?" }).waitFor();
  const crm = page.locator('[data-area="crm"]');
  assert.match(await crm.locator('[data-area-group="content"]').textContent() ?? "", /Area content: rename_page \(can change things\)/);
  assert.match(await crm.locator('[data-area-group="people"]').textContent() ?? "", /Area people: list_people$/);
  await crm.locator('[data-area-group="people"] input').check();
  await screenshot(page, "consent-areas");
  const [approved] = await Promise.all([
    page.waitForResponse((res) => res.url().endsWith("/approve")),
    page.getByRole("button", { name: "Approve" }).click(),
  ]);
  assert.equal(approved.status(), 200);
  const connection = (await app.app.store.listTokens(user.id)).find((t) => t.connection !== null && t.connection !== undefined);
  assert.deepEqual(connection?.scopes, { permissions: ["knot.mcp", "plugin.crm.list_people"], write: false });
  await context.close();
});

test("the admin Plugins page lists each plugin's areas", async () => {
  const { context, page } = await signIn(browser, app, (await app.userWithToken("ada", { admin: true })).token);
  await page.goto("/#/plugins");
  const areas = page.locator(".plugin-areas");
  await areas.locator('[data-area="content"]').waitFor();
  assert.equal(await areas.locator('[data-area="content"]').textContent(), "content: rename_pagechanges things");
  assert.equal(await areas.locator('[data-area="people"]').textContent(), "people: list_people");
  await context.close();
});
