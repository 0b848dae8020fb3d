/**
 * The editor keeps unsaved work: edits typed while a save is in flight stay unsaved (and are saved
 * next), a session that ends or a Sign out does not silently drop the draft, a save conflict can be
 * resolved without losing it, and a running tool is not cancelled by switching tabs.
 * Callbacks given to page.evaluate run in the page (this file is type-checked without DOM types).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { request, type TestApp } from "../helpers/fixtures.ts";
import { waitFor } from "../helpers/peers.ts";
import { browserSuite, screenshot, signIn } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;
let bob = "";

browserSuite(async (started, launched) => {
  app = started;
  browser = launched;
  bob = (await app.userWithToken("bob", { grants: ["knot.tools.author"] })).token;
});

const CODE = "export default () => 1;\n";

async function newTool(name: string, code = CODE): Promise<string> {
  const res = await request(`${app.url}/api/tools`, bob, { method: "POST", body: JSON.stringify({ name, code }) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.tool.id;
}

const savedTool = async (id: string) => (await request(`${app.url}/api/tools/${encodeURIComponent(id)}`, bob)).body.tool;

async function openEditor(page: Page, id: string): Promise<void> {
  await page.goto(`/#/tools/${encodeURIComponent(id)}`);
  await page.locator(".cm-content").waitFor();
}

/** Types at the end of the document, as a person would. */
async function typeAtEnd(page: Page, text: string): Promise<void> {
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.insertText(text);
}

const saveStatus = (page: Page) => page.locator(".save-area [role=status]").textContent();
/** The editor's document, line by line (a small document: CodeMirror renders every line). */
const editorText = async (page: Page) => (await page.locator(".cm-content .cm-line").allTextContents()).join("\n");
/** The editor's text once it is `expected` (a click's effect reaches CodeMirror a tick or more later); fails with what it shows. */
async function assertEditorText(page: Page, expected: string): Promise<void> {
  await waitFor(async () => (await editorText(page)) === expected, 5_000, "the editor's text").catch(() => undefined);
  assert.equal(await editorText(page), expected);
}

/** A new tool of bob's, open in the editor of a fresh signed-in browser context. */
async function editNewTool(name: string) {
  const id = await newTool(name);
  const { page, context } = await signIn(browser, app, bob);
  await openEditor(page, id);
  return { id, page, context };
}

/** After a reload the editor offers no kept draft. */
async function assertNothingOfferedAfterReload(page: Page): Promise<void> {
  await page.reload();
  await page.locator(".cm-content").waitFor();
  assert.equal(await page.getByRole("region", { name: "Unsaved changes found" }).count(), 0);
}

test("edits typed while a save is in flight stay unsaved, and the next save stores them", async () => {
  const { id, page, context } = await editNewTool("inflight");
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(`**/api/tools/${encodeURIComponent(id)}`, async (route) => {
    if (route.request().method() === "PUT") await held;
    await route.continue();
  });
  await typeAtEnd(page, "// first\n");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("button", { name: "Saving…" }).waitFor();
  await typeAtEnd(page, "// second\n");
  release();
  await page.getByText("Saved as version 2").waitFor();
  assert.equal(await saveStatus(page), "Unsaved changes");
  assert.match(await editorText(page), /\/\/ first\n\/\/ second\n$/);
  assert.equal((await savedTool(id)).code, `${CODE}// first\n`);
  // The next save is based on version 2 (no conflict) and stores the later edit.
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Saved as version 3").waitFor();
  assert.equal(await saveStatus(page), "All changes saved");
  assert.equal((await savedTool(id)).code, `${CODE}// first\n// second\n`);
  await context.close();
});

/** Signs in again through the form on the same page (its hash route is kept). */
async function signInAgain(page: Page): Promise<void> {
  await page.getByLabel("API token").fill(bob);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

/** Ends the session as expiry would: the cookie is gone, so the next request (lint) answers 401. */
async function endSessionWhileTyping(page: Page, text: string): Promise<void> {
  await page.context().clearCookies();
  await typeAtEnd(page, text);
  await page.getByLabel("API token").waitFor();
}

test("a session that ends keeps the unsaved draft in the tab, and after signing in again it can be restored and saved", async () => {
  const { id, page, context } = await editNewTool("expiry");
  await typeAtEnd(page, "// kept\n");
  await endSessionWhileTyping(page, "// also kept\n");
  await signInAgain(page);
  const offer = page.getByRole("region", { name: "Unsaved changes found" });
  await offer.waitFor();
  assert.match((await offer.textContent()) ?? "", /made to version 1/);
  assert.equal(await saveStatus(page), "All changes saved", "nothing is applied before the user chooses");
  await screenshot(page, "editor-recovered-draft");
  await offer.getByRole("button", { name: "Restore my unsaved changes" }).click();
  assert.equal(await offer.count(), 0);
  await assertEditorText(page, `${CODE}// kept\n// also kept\n`);
  assert.equal(await saveStatus(page), "Unsaved changes");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Saved as version 2").waitFor();
  assert.equal((await savedTool(id)).code, `${CODE}// kept\n// also kept\n`);
  // Saved: nothing is offered any more.
  await assertNothingOfferedAfterReload(page);
  await context.close();
});

test("a kept draft can be discarded: the saved version stays and it is not offered again", async () => {
  const { id, page, context } = await editNewTool("expiry-discard");
  await typeAtEnd(page, "// unwanted\n");
  await endSessionWhileTyping(page, "// more\n");
  await signInAgain(page);
  const offer = page.getByRole("region", { name: "Unsaved changes found" });
  await offer.getByRole("button", { name: "Discard them" }).click();
  assert.equal(await offer.count(), 0);
  await assertEditorText(page, CODE);
  await assertNothingOfferedAfterReload(page);
  await context.close();
});

test("Sign out with unsaved changes asks first: Cancel keeps the session and the draft, OK signs out and drops it", async () => {
  const { id, page, context } = await editNewTool("sign-out");
  await typeAtEnd(page, "// draft\n");
  // The first question is answered Cancel, the second OK; any further one would be a double ask.
  const asked: string[] = [];
  page.on("dialog", (d) => (asked.push(d.message()), void (asked.length === 1 ? d.dismiss() : d.accept())));
  await page.getByRole("button", { name: "Sign out" }).click();
  assert.match(asked[0] ?? "(not asked)", /unsaved changes/);
  await assertEditorText(page, `${CODE}// draft\n`);
  assert.equal((await page.request.get("/api/me", { headers: { "x-knot-csrf": "1" } })).status(), 200, "still signed in");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API token").waitFor();
  await signInAgain(page);
  await openEditor(page, id);
  await assertEditorText(page, CODE);
  assert.equal(await page.getByRole("region", { name: "Unsaved changes found" }).count(), 0, "signing out on purpose leaves no draft behind");
  assert.equal(asked.length, 2, `asked once per Sign out: ${JSON.stringify(asked)}`);
  await context.close();
});

/** Saves a new version from elsewhere (another tab, a client), as the owner. */
async function saveElsewhere(id: string, body: Record<string, unknown>): Promise<void> {
  const res = await request(`${app.url}/api/tools/${encodeURIComponent(id)}`, bob, { method: "PUT", body: JSON.stringify(body) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

const THEIRS = "export default () => 'theirs';\n";

test("a save conflict keeps my draft and offers Overwrite with my version, which saves it over the latest", async () => {
  const { id, page, context } = await editNewTool("conflict-mine");
  await typeAtEnd(page, "// mine\n");
  await saveElsewhere(id, { code: THEIRS });
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const conflict = page.getByRole("region", { name: "Save conflict" });
  await conflict.waitFor();
  assert.match((await conflict.textContent()) ?? "", /saved as version 2 elsewhere.*you were editing version 1/s);
  assert.equal(await page.getByText("Reload it and save again").count(), 0, "no advice that would lose the draft");
  await assertEditorText(page, `${CODE}// mine\n`);
  assert.equal(await saveStatus(page), "Unsaved changes");
  await conflict.getByRole("button", { name: "Compare theirs with mine" }).click();
  await conflict.locator(".cm-mergeView").waitFor();
  await screenshot(page, "editor-save-conflict");
  await conflict.getByRole("button", { name: "Overwrite with my version" }).click();
  await page.getByText("Saved as version 3").waitFor();
  assert.equal(await conflict.count(), 0);
  assert.equal(await saveStatus(page), "All changes saved");
  assert.equal((await savedTool(id)).code, `${CODE}// mine\n`);
  await context.close();
});

test("a save conflict can be resolved with Discard mine and load theirs", async () => {
  const { id, page, context } = await editNewTool("conflict-theirs");
  await typeAtEnd(page, "// mine\n");
  await saveElsewhere(id, { code: THEIRS });
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const conflict = page.getByRole("region", { name: "Save conflict" });
  await conflict.getByRole("button", { name: "Discard mine and load theirs" }).click();
  assert.equal(await conflict.count(), 0);
  await assertEditorText(page, THEIRS);
  assert.equal(await saveStatus(page), "All changes saved");
  assert.match((await page.locator("h1").textContent()) ?? "", /v2/);
  // Based on version 2 now: the next save is no conflict.
  await typeAtEnd(page, "// after\n");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Saved as version 3").waitFor();
  assert.equal((await savedTool(id)).code, `${THEIRS}// after\n`);
  await context.close();
});

test("a restored draft made to an older version is not saved over the newer one without asking", async () => {
  const { id, page, context } = await editNewTool("stale-restore");
  await typeAtEnd(page, "// kept\n");
  await endSessionWhileTyping(page, "// more\n");
  await saveElsewhere(id, { code: THEIRS });
  await signInAgain(page);
  const offer = page.getByRole("region", { name: "Unsaved changes found" });
  assert.match((await offer.textContent()) ?? "", /made to version 1; the tool is now at version 2/);
  await offer.getByRole("button", { name: "Restore my unsaved changes" }).click();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByRole("region", { name: "Save conflict" }).waitFor();
  assert.equal((await savedTool(id)).code, THEIRS);
  await context.close();
});

test("a name clash (also CONFLICT) is shown as an error, not as a version conflict", async () => {
  await newTool("taken");
  const { id, page, context } = await editNewTool("clash");
  await page.getByRole("tab", { name: "Settings" }).click();
  await page.getByLabel("Name", { exact: true }).fill("taken");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Could not save").waitFor();
  assert.match((await page.locator(".error-box").textContent()) ?? "", /already has a tool named "taken"/);
  assert.equal(await page.getByRole("region", { name: "Save conflict" }).count(), 0);
  await context.close();
});

const SLOW = `import { getString, progress } from "knot:tool";
import { call } from "knot:plugin";
export default async function () {
  for (let i = 0; i < 100; i++) {
    progress(i, 100, "step " + i);
    await call("demo", "lib_exports");
    const t = Date.now();
    while (Date.now() - t < 20) {}
  }
  return "done " + getString("word");
}
`;

async function newSlowTool(name: string): Promise<string> {
  const res = await request(`${app.url}/api/tools`, bob, { method: "POST", body: JSON.stringify({ name, code: SLOW, parameters: [{ name: "word", type: "string", required: true }] }) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.tool.id;
}

async function startRun(page: Page, word: string): Promise<void> {
  await page.getByLabel(/^word/).fill(word);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await page.locator(".run-progress").getByText(/\d+ \/ 100 step/).waitFor();
}

test("switching tabs while a tool runs does not cancel the run", async () => {
  const id = await newSlowTool("slow-tabs");
  const { page, context } = await signIn(browser, app, bob);
  await openEditor(page, id);
  await startRun(page, "hello");
  await page.getByRole("tab", { name: "History" }).click();
  await page.getByRole("tab", { name: "Run" }).click();
  await page.locator(".result-text").waitFor({ timeout: 30_000 });
  assert.equal(await page.locator(".result-text").textContent(), "done hello");
  assert.equal(await page.getByText(/Run cancelled/).count(), 0);
  await context.close();
});

test("editing a parameter while a tool runs does not cancel the run, and keeps the typed arguments", async () => {
  const id = await newSlowTool("slow-params");
  const { page, context } = await signIn(browser, app, bob);
  await openEditor(page, id);
  await startRun(page, "there");
  await page.getByRole("tab", { name: "Parameters" }).click();
  await page.getByLabel("Description").first().fill("The word to greet.");
  await page.getByRole("tab", { name: "Run" }).click();
  await page.locator(".result-text").waitFor({ timeout: 30_000 });
  assert.equal(await page.locator(".result-text").textContent(), "done there");
  assert.equal(await page.getByText(/Run cancelled/).count(), 0);
  assert.equal(await page.getByLabel(/^word/).inputValue(), "there");
  await context.close();
});
