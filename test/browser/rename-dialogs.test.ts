/**
 * The one rename dialog (ui/src/lib/ui.tsx NameDialog) in its two places, in a real browser:
 * a tool and a token are renamed; a refused name shows the server's error in the dialog, which
 * stays open with what was typed, and nothing changes.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { request, type TestApp } from "../helpers/fixtures.ts";
import { ensureUiBuilt, launchBrowser, signIn, startApp } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;
let token = "";

before(async () => {
  await ensureUiBuilt();
  app = await startApp();
  token = (await app.userWithToken("dana", { grants: ["knot.tools.author"] })).token;
  const saved = await request(`${app.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "old_name", code: "export default () => 1;" }) });
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  const minted = await request(`${app.url}/api/tokens`, token, { method: "POST", body: JSON.stringify({ name: "laptop", expiresInDays: 30 }) });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
});

test("a tool is renamed through the dialog; a name the server refuses keeps the dialog open with its error", async () => {
  const { page, context } = await signIn(browser, app, token);
  await page.goto("/#/tools");
  await page.getByRole("button", { name: "Rename old_name" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("New name").fill("has spaces!");
  await dialog.getByRole("button", { name: "Rename" }).click();
  await dialog.getByText("Could not rename").waitFor();
  assert.equal(await dialog.getByLabel("New name").inputValue(), "has spaces!");
  await dialog.getByLabel("New name").fill("new_name");
  await dialog.getByRole("button", { name: "Rename" }).click();
  await dialog.waitFor({ state: "detached" });
  await page.getByRole("button", { name: "Rename new_name" }).waitFor();
  const listed = await request(`${app.url}/api/tools`, token);
  assert.deepEqual(listed.body.tools.map((t: { name: string }) => t.name), ["new_name"]);
  await context.close();
});

test("a token is renamed through the same dialog", async () => {
  const { page, context } = await signIn(browser, app, token);
  await page.goto("/#/tokens");
  await page.getByRole("button", { name: "Rename laptop" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Name").fill("work laptop");
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "detached" });
  await page.getByRole("button", { name: "Rename work laptop" }).waitFor();
  const listed = await request(`${app.url}/api/tokens`, token);
  assert.ok(listed.body.tokens.some((t: { name: string }) => t.name === "work laptop"), JSON.stringify(listed.body));
  await context.close();
});
