/**
 * The editor's Libs tab in a real browser: a tool's `lib:` pins (owner, version, "newer version"
 * when the lib moved on), and the owner's Update libs button, which re-pins and saves a new
 * version. The rules behind it are tested through the API in test/tools/attack-lib-squatting.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { request, type TestApp } from "../helpers/fixtures.ts";
import { ensureUiBuilt, launchBrowser, screenshot, signIn, startApp } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;
let alice: string, bob: string, carol: string;
let toolId = "";

before(async () => {
  await ensureUiBuilt();
  app = await startApp();
  alice = (await app.userWithToken("alice", { grants: ["knot.tools.author"] })).token;
  bob = (await app.userWithToken("bob", { grants: ["knot.tools.author"] })).token;
  carol = (await app.userWithToken("carol")).token;
  const post = (token: string, body: unknown) => request(`${app.url}/api/tools`, token, { method: "POST", body: JSON.stringify(body) });
  const lib = await post(alice, { name: "fmt", kind: "lib", sharing: "everyone", code: `export const tag = () => "v1";\n` });
  const tool = await post(bob, { name: "report", sharing: "everyone", code: `import { tag } from "lib:fmt";\nexport default () => tag();\n` });
  toolId = tool.body.tool.id;
  await request(`${app.url}/api/tools/${lib.body.tool.id}`, alice, { method: "PUT", body: JSON.stringify({ code: `export const tag = () => "v2";\n` }) });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
});

test("the Libs tab shows an outdated pin with its owner, and Update libs re-pins it as a new version", async () => {
  const { page, context } = await signIn(browser, app, bob);
  await page.goto(`/#/tools/${encodeURIComponent(toolId)}`);
  await page.getByRole("tab", { name: "Libs" }).click();
  const pin = page.locator('[data-pin="fmt"]');
  await pin.waitFor();
  assert.equal(await pin.getAttribute("data-status"), "outdated");
  assert.match((await pin.textContent()) ?? "", /alice's fmt\s*v1.*newer version exists \(v2\)/s);
  await screenshot(page, "editor-libs-outdated");
  await page.getByRole("button", { name: "Update libs" }).click();
  await page.getByText("Libs updated: saved as version 2.").waitFor();
  await page.locator('[data-pin="fmt"][data-status="ok"]').waitFor();
  assert.match((await page.locator('[data-pin="fmt"]').textContent()) ?? "", /v2/);
  await context.close();
});

test("someone the tool is shared with sees the pins but no Update libs button", async () => {
  const { page, context } = await signIn(browser, app, carol);
  await page.goto(`/#/tools/${encodeURIComponent(toolId)}`);
  await page.getByText("Shared with you by its owner, bob").waitFor();
  await page.getByRole("tab", { name: "Libs" }).click();
  await page.locator('[data-pin="fmt"][data-status="ok"]').waitFor();
  assert.equal(await page.getByRole("button", { name: "Update libs" }).count(), 0);
  await context.close();
});
