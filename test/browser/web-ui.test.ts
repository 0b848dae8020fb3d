/**
 * The web UI in a real browser (Debian's Chromium via playwright-core) against the real server,
 * sandbox and loopback. One story, in order: bob signs in, writes a tool that imports plugin:demo
 * and calls a gated handler, sees a lint error, saves, runs it; carol (no grant) runs the shared
 * tool and gets PERMISSION_DENIED; ann (admin) sees the failed plugin, a plugin page, tokens and
 * the audit log with the secret masked. Plus: a tool's HTML/script output stays text.
 * Callbacks given to page.evaluate run in the page and reach its globals as `globalThis as any`,
 * because this file is type-checked without DOM types.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { request, type TestApp } from "../helpers/fixtures.ts";
import { ensureUiBuilt, launchBrowser, pluginsWithAFailure, screenshot, signIn, startApp, type UiSession } from "./browser-helpers.ts";

const TOOL = "echo-demo";
const SECRET_VALUE = "s3cret-value-123";
const TOOL_CODE = `import { Widgets } from "plugin:demo";
import { getString } from "knot:tool";

export default async function () {
  const word = getString("word");
  console.log("echoing", word);
  const echoed = await new Widgets().echo(word);
  return { echoed, keyLength: getString("apiKey").length };
}
`;

let app: TestApp;
let browser: Browser;
let tokens: Record<"ann" | "bob" | "carol", string>;
let bob: UiSession;
let toolId = "";

before(async () => {
  await ensureUiBuilt();
  app = await startApp({ pluginsDir: pluginsWithAFailure() });
  tokens = {
    ann: (await app.userWithToken("ann", { admin: true })).token,
    bob: (await app.userWithToken("bob", { grants: ["knot.tools.author", "plugin.demo.view_dashboard"] })).token,
    carol: (await app.userWithToken("carol", { grants: ["knot.tools.author"] })).token,
  };
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.close();
});

/** Replaces the editor's whole document, as a paste would. */
async function setCode(page: Page, code: string): Promise<void> {
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(code);
  await page.keyboard.press("Escape");
}

async function openTab(page: Page, name: string): Promise<void> {
  await page.getByRole("tab", { name }).click();
}

async function createTool(page: Page, name: string): Promise<string> {
  await page.goto("/#/tools");
  await page.getByRole("button", { name: "New tool or lib" }).click();
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByRole("heading", { level: 1, name: new RegExp(name) }).waitFor();
  return decodeURIComponent(page.url().split("#/tools/")[1] ?? "");
}

async function save(page: Page, version: number): Promise<void> {
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText(`Saved as version ${version}.`).waitFor();
}

test("sign in: the session cookie is HttpOnly and SameSite=Strict, and scripts cannot read it", async () => {
  bob = await signIn(browser, app, tokens.bob);
  await bob.page.getByText("bob", { exact: true }).waitFor();
  const cookies = await bob.context.cookies();
  const session = cookies.find((c) => c.name === "knot_session");
  assert.ok(session, "a session cookie was set");
  assert.equal(session.httpOnly, true);
  assert.equal(session.sameSite, "Strict");
  assert.ok(session.value.startsWith("kts_"));
  assert.equal(await bob.page.evaluate(() => (globalThis as any).document.cookie.includes("knot_session")), false);
  // Admin-only navigation is not offered to bob.
  assert.equal(await bob.page.getByRole("link", { name: "Plugins" }).count(), 0);
});

test("create a tool that imports plugin:demo, with completion of modules and their exports", async () => {
  const { page } = bob;
  toolId = await createTool(page, TOOL);
  assert.ok(toolId.length > 0);
  // Module completion: inside `from "…"` the editor offers the importable modules.
  await setCode(page, 'import { } from "plu');
  await page.keyboard.press("Control+Space");
  const options = page.locator(".cm-tooltip-autocomplete li");
  await options.first().waitFor();
  const labels = await options.allTextContents();
  assert.ok(labels.some((l) => l.includes("plugin:demo")), `completion offers plugin:demo (got ${labels.join(" | ")})`);
  await page.keyboard.press("Escape");
  // Export completion: inside `import { … } from "plugin:demo"` it offers Widgets.
  await setCode(page, 'import {  } from "plugin:demo";');
  await page.keyboard.press("Home");
  for (let i = 0; i < "import { ".length; i++) await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Control+Space");
  await options.first().waitFor();
  assert.ok((await options.allTextContents()).some((l) => l.includes("Widgets")), "completion offers Widgets from plugin:demo");
  await page.keyboard.press("Escape");

  await setCode(page, TOOL_CODE);
  await openTab(page, "Parameters");
  // The starter tool has one parameter ("name"): make it "word", then add "apiKey".
  await page.getByLabel("Name", { exact: true }).nth(0).fill("word");
  await page.getByLabel("Description").nth(0).fill("The word to echo.");
  await page.getByRole("checkbox", { name: "Required" }).nth(0).check();
  await page.getByRole("button", { name: "Add parameter" }).click();
  await page.getByLabel("Name", { exact: true }).nth(1).fill("apiKey");
  await page.getByRole("checkbox", { name: "Secret" }).nth(1).check();
  await openTab(page, "Schema");
  const schema = page.getByLabel("Tool definition as JSON");
  await schema.filter({ hasText: '"apiKey"' }).waitFor();
  const definition = JSON.parse((await schema.textContent()) ?? "{}");
  assert.equal(definition.name, TOOL);
  assert.deepEqual(definition.inputSchema.required, ["word"]);
  assert.equal(definition.inputSchema.properties.word.type, "string");
});

test("a syntax error shows a lint diagnostic inline as you type", async () => {
  const { page } = bob;
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.insertText("\nconst broken = ;\n");
  await page.locator(".cm-lintRange-error").first().waitFor();
  await page.locator(".problems").getByText("SYNTAX_ERROR").waitFor();
  assert.match((await page.locator(".problems").textContent()) ?? "", /1 error.*Line 1\d:\d+ Unexpected token/);
  await setCode(page, TOOL_CODE);
  await page.getByText("No problems found.").waitFor();
  assert.equal(await page.locator(".cm-lintRange-error").count(), 0);
});

test("save makes a new version, with history, a diff and an unsaved-changes marker", async () => {
  const { page } = bob;
  assert.equal(await page.getByText("Unsaved changes").count(), 1);
  await save(page, 2);
  await page.getByText("All changes saved").waitFor();
  await setCode(page, TOOL_CODE.replace("echoing", "now echoing"));
  await page.getByText("Unsaved changes").waitFor();
  await save(page, 3);
  await openTab(page, "History");
  await page.locator('[data-version="1"]').waitFor();
  assert.equal(await page.locator(".versions li").count(), 3);
  await page.getByRole("button", { name: "Compare version 2 with the editor" }).click();
  await page.locator(".cm-mergeView").waitFor();
  assert.ok((await page.locator(".cm-mergeView .cm-changedLine").count()) > 0, "the diff marks the changed line");
  await page.getByRole("button", { name: "Close" }).click();
});

test("run with arguments: the real sandbox and loopback, result, log and duration", async () => {
  const { page } = bob;
  await openTab(page, "Run");
  await page.getByLabel(/^word/).fill("hello");
  await page.getByLabel(/^apiKey/).fill(SECRET_VALUE);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const result = page.locator(".result-text");
  await result.waitFor();
  const value = JSON.parse((await result.textContent()) ?? "{}");
  assert.equal(value.echoed.word, "hello");
  assert.equal(value.echoed.by, "bob");
  assert.equal(value.keyLength, SECRET_VALUE.length);
  assert.match((await page.locator(".log-lines").textContent()) ?? "", /now echoing hello/);
  assert.match((await page.locator(".duration").textContent()) ?? "", /Took [\d.]+ ms/);
  await screenshot(page, "editor-run-panel");
  await openTab(page, "Parameters");
  await screenshot(page, "editor-parameters");
  await openTab(page, "Run");
});

test("a second user without the grant runs the shared tool and sees PERMISSION_DENIED", async () => {
  const { page } = bob;
  await openTab(page, "Settings");
  await page.getByLabel("Sharing").selectOption("everyone");
  await save(page, 4);

  const carol = await signIn(browser, app, tokens.carol);
  await carol.page.getByRole("heading", { name: "Shared with me" }).waitFor();
  await carol.page.locator(`[data-tool="${TOOL}"] a`).click();
  await carol.page.getByText("Shared with you by its owner").waitFor();
  await carol.page.getByLabel(/^word/).fill("nope");
  await carol.page.getByRole("button", { name: "Run", exact: true }).click();
  const error = carol.page.locator(".run-error");
  await error.waitFor();
  assert.match((await error.textContent()) ?? "", /PERMISSION_DENIED/);
  await screenshot(carol.page, "run-permission-denied");
  // carol does not pass the demo page's gate, so it is not in her navigation.
  assert.equal(await carol.page.getByRole("link", { name: "Demo status" }).count(), 0);
  await carol.context.close();
});

test("a tool's HTML or script in its result and log is shown as text, never executed", async () => {
  const { page } = bob;
  const payload = `<img src=x onerror="window.__xss='img'"><script>window.__xss='script'</script><b>bold</b>`;
  await createTool(page, "html-out");
  await setCode(page, `export default function () {\n  console.log(${JSON.stringify(payload)});\n  return ${JSON.stringify(payload)};\n}\n`);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  const result = page.locator(".result-text");
  await result.waitFor();
  assert.equal(await result.textContent(), payload);
  assert.equal(await page.locator(".run-output img, .run-output script, .run-output b").count(), 0);
  assert.match((await page.locator(".log-lines").textContent()) ?? "", /<script>/);
  assert.equal(await page.evaluate(() => (globalThis as any).__xss), undefined);
  await save(page, 2);
});

test("a long run shows progress and can be cancelled", async () => {
  const { page } = bob;
  await createTool(page, "slow");
  await setCode(page, `import { progress } from "knot:tool";
import { call } from "knot:plugin";
export default async function () {
  for (let i = 0; i < 200; i++) {
    progress(i, 200, "step " + i);
    await call("demo", "lib_exports");
    const t = Date.now();
    while (Date.now() - t < 20) {}
  }
  return "done";
}
`);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await page.locator(".run-progress").getByText(/\d+ \/ 200 step/).waitFor();
  await page.getByRole("button", { name: "Cancel" }).click();
  await page.getByText(/Run cancelled after/).waitFor();
  assert.equal(await page.locator(".result-text").count(), 0);
});

test("an admin sees a failed plugin's reason, the plugin details and a plugin page", async () => {
  const ann = await signIn(browser, app, tokens.ann);
  const { page } = ann;
  await page.getByRole("link", { name: "Plugins" }).click();
  const failed = page.locator('.failed[data-plugin="broken"]');
  await failed.waitFor();
  assert.match((await failed.textContent()) ?? "", /undeclared_permission/);
  const demo = page.locator('.plugin[data-plugin="demo"]');
  assert.match((await demo.textContent()) ?? "", /plugin\.demo\.view_dashboard/);
  assert.match((await demo.textContent()) ?? "", /echo_word/);
  await screenshot(page, "plugins");

  await page.getByRole("link", { name: "Demo status" }).click();
  await page.getByRole("heading", { level: 1, name: "Demo status" }).waitFor();
  await page.locator(".markdown strong", { hasText: "fine" }).waitFor();
  assert.equal((await page.locator(".stat-value").textContent())?.trim(), "5");
  assert.match((await page.locator(".kv").textContent()) ?? "", /Signed in asann/);
  assert.equal(await page.locator(".plugin-page table.data tbody tr").count(), 2);
  await screenshot(page, "plugin-page");
  await ann.context.close();
});

test("create a token (shown once, with a copy button) and revoke it", async () => {
  const ann = await signIn(browser, app, tokens.ann);
  const { page, context } = ann;
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.url });
  await page.getByRole("link", { name: "Tokens" }).click();
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByLabel("Name", { exact: true }).fill("assistant");
  await page.getByLabel("Expires").selectOption("30");
  await page.getByLabel("Limit to scopes").check();
  await page.getByLabel("Scopes", { exact: true }).fill("plugin.demo.*, knot.tools.run");
  await page.getByRole("button", { name: "Create", exact: true }).click();
  const secretBox = page.getByLabel("New token secret");
  await secretBox.waitFor();
  const secret = await secretBox.inputValue();
  assert.match(secret, /^kt_/);
  await page.getByRole("button", { name: "Copy" }).click();
  await page.getByRole("button", { name: "Copied" }).waitFor();
  assert.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText()), secret);
  await screenshot(page, "token-created");
  const me = await request(`${app.url}/api/me`, secret);
  assert.equal(me.status, 200);
  assert.deepEqual(me.body.scopes, { permissions: ["plugin.demo.*", "knot.tools.run"], write: true });
  await page.getByRole("button", { name: "Done" }).click();
  const row = page.locator('tr[data-token="assistant"]');
  await row.waitFor();
  assert.equal(await row.getByText(secret).count(), 0, "the list never shows the secret");
  await row.getByRole("button", { name: "Revoke assistant" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
  await row.waitFor({ state: "detached" });
  assert.equal((await request(`${app.url}/api/me`, secret)).status, 401);
  await ann.context.close();
});

test("the audit table shows the runs with the secret masked, and the chain status", async () => {
  const ann = await signIn(browser, app, tokens.ann);
  const { page } = ann;
  await page.getByRole("link", { name: "Audit" }).click();
  await page.getByText(/Chain intact/).waitFor();
  // A row names a saved user tool with its owner (src/audit/tool-names.ts).
  await page.getByLabel("Tool").fill(`user:bob/${TOOL}`);
  await page.getByRole("button", { name: "Filter" }).click();
  const rows = page.locator(`tr[data-tool="user:bob/${TOOL}"]`);
  await rows.first().waitFor();
  const text = (await page.locator(".audit-table").textContent()) ?? "";
  assert.ok(!text.includes(SECRET_VALUE), "the secret's value never appears");
  assert.match(text, /"apiKey": "masked:/);
  assert.match(text, /"word": "hello"/);
  assert.match(text, /PERMISSION_DENIED/, "carol's refused run is there");
  assert.match(text, /bob/);
  assert.match(text, /carol/);
  await screenshot(page, "audit");
  await ann.context.close();
});

test("usable on a narrow window, then sign out ends the session", async () => {
  const narrow = await signIn(browser, app, tokens.bob, { width: 420, height: 820 });
  await narrow.page.goto(`/#/tools/${encodeURIComponent(toolId)}`);
  await narrow.page.locator(".cm-content").waitFor();
  const overflow = await narrow.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth);
  if (overflow > 1) {
    const wide = await narrow.page.evaluate(() => [...(globalThis as any).document.querySelectorAll("body *")].filter((e: any) => e.getBoundingClientRect().right > (globalThis as any).document.documentElement.clientWidth + 1).slice(0, 8).map((e: any) => `${e.tagName}.${e.className}`));
    assert.fail(`horizontal scrolling on a narrow window (${overflow}px) from: ${wide.join(", ")}`);
  }
  assert.ok(overflow <= 1, `no horizontal scrolling on a narrow window (overflow ${overflow}px)`);
  await screenshot(narrow.page, "editor-narrow");
  await narrow.context.close();

  const { page, context } = bob;
  const cookie = (await context.cookies()).find((c) => c.name === "knot_session")!;
  // The "slow" tool's editor still has unsaved code: leave it without saving when asked.
  page.once("dialog", (d) => void d.accept());
  await page.goto("/#/tools");
  await page.getByRole("button", { name: "New tool or lib" }).waitFor();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API token").waitFor();
  assert.equal((await context.cookies()).some((c) => c.name === "knot_session"), false);
  const replay = await fetch(`${app.url}/api/me`, { headers: { cookie: `knot_session=${cookie.value}` } });
  assert.equal(replay.status, 401, "the old session cookie no longer works");
  await context.close();
});
