/**
 * Rules the web UI checks before asking the server are the server's own (imported, not copied):
 * the New tool dialog refuses exactly the names the server refuses (`__` included), and a sink's
 * Events tab lists the built-in event types the server accepts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Browser } from "playwright-core";
import { BUILTIN_EVENT_TYPES } from "../../src/events/builtin-event-types.ts";
import { request, type TestApp } from "../helpers/fixtures.ts";
import { browserSuite, signIn } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;
let token = "";

browserSuite(async (started, launched) => {
  app = started;
  browser = launched;
  token = (await app.userWithToken("eli", { grants: ["knot.tools.author"] })).token;
});

test("the New tool dialog accepts exactly the names the server accepts", async () => {
  const { context, page } = await signIn(browser, app, token);
  await page.goto("/#/tools");
  await page.getByRole("button", { name: "New tool or lib" }).click();
  const input = page.getByLabel("Name", { exact: true });
  for (const name of ["a__b", "-a", "a.b", "x".repeat(65), "a_b-c", "x".repeat(64), "9_lives"]) {
    await input.fill(name);
    const invalidInForm = (await page.locator("#new-name:invalid").count()) === 1;
    const refused = (await request(`${app.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name, code: "export default () => 1;" }) })).status !== 201;
    assert.equal(invalidInForm, refused, `${name}: the form ${invalidInForm ? "refuses" : "accepts"} it, the server ${refused ? "refuses" : "accepts"} it`);
  }
  await input.fill("a__b");
  await page.getByRole("button", { name: "Create" }).click();
  assert.match(await input.evaluate((el) => (el as unknown as { validationMessage: string }).validationMessage), /__/);
  await context.close();
});

test("a sink's Events tab names the server's built-in event types", async () => {
  const created = await request(`${app.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "listener", kind: "sink", events: ["tool.saved"], code: "export default () => 1;" }) });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { context, page } = await signIn(browser, app, token);
  await page.goto(`/#/tools/${encodeURIComponent(created.body.tool.id)}`);
  await page.getByRole("tab", { name: "Events" }).click();
  assert.deepEqual(await page.locator("#sink-events-hint code.chip").allTextContents(), [...BUILTIN_EVENT_TYPES]);
  await context.close();
});
