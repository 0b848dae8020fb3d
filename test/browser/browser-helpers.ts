/**
 * Browser tests' setup: the UI bundle built once per process, an app on 127.0.0.1:0 with the
 * example plugins plus one that fails to load, and the Chromium that `npm ci` brings (the npm package
 * @sparticuz/chromium, see ../helpers/chromium.ts) driven by playwright-core. Screenshots go to test-artifacts/screenshots/ (kept out of git).
 */
import fs from "node:fs";
import path from "node:path";
import { after, before } from "node:test";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { buildUi } from "../../ui/build.ts";
import { chromiumLaunch } from "../helpers/chromium.ts";
import { EXAMPLE_PLUGINS, manifest, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";

export const SCREENSHOTS = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");
const DIST = path.resolve(import.meta.dirname, "../../ui/dist");

let built: Promise<unknown> | null = null;
/**
 * Builds the UI unless a build newer than every source file is there already: the files under ui/
 * and those the last bundle took from outside it (shared modules such as the parameter limits,
 * named by its source map).
 */
export function ensureUiBuilt(): Promise<unknown> {
  built ??= (async () => {
    const index = path.join(DIST, "index.html");
    const builtAt = fs.existsSync(index) && fs.existsSync(path.join(DIST, "assets/app.js")) ? fs.statSync(index).mtimeMs : 0;
    const src = path.resolve(import.meta.dirname, "../../ui");
    const uiFiles = fs.readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !path.join(e.parentPath, e.name).includes(`${path.sep}dist${path.sep}`))
      .map((e) => path.join(e.parentPath, e.name));
    const mtime = (file: string) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : Infinity);
    const newest = [...uiFiles, ...bundledFromOutside()].reduce((max, file) => Math.max(max, mtime(file)), 0);
    if (builtAt < newest) await buildUi();
  })();
  return built;
}

/** The bundle's inputs outside ui/ and node_modules, from the last build's source map (none before a build). */
function bundledFromOutside(): string[] {
  const map = path.join(DIST, "assets/app.js.map");
  if (!fs.existsSync(map)) return [];
  const sources: string[] = JSON.parse(fs.readFileSync(map, "utf8")).sources;
  const assets = path.dirname(map);
  return sources.map((s) => path.resolve(assets, s)).filter((file) => !file.includes(`${path.sep}node_modules${path.sep}`) && !file.startsWith(`${path.dirname(DIST)}${path.sep}`));
}

/** The example plugins plus `broken`, whose metadata names an undeclared permission. */
export function pluginsWithAFailure(): string {
  const root = tempDir("knot-ui-plugins-");
  fs.cpSync(EXAMPLE_PLUGINS, root, { recursive: true });
  writePlugin(root, "broken", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      [[tool.knot.handlers]]
      handler = "go"
      permission = "undeclared_permission"
    `) + "export function go() { return 1; }\n",
  });
  return root;
}

export async function launchBrowser(): Promise<Browser> {
  const { executablePath, args, env } = await chromiumLaunch();
  return chromium.launch({ executablePath, args: [...args], env: { ...process.env, ...env }, headless: true });
}

export interface UiSession {
  readonly context: BrowserContext;
  readonly page: Page;
}

/** A fresh browser context (its own cookies) signed in with `token` through the sign-in form. */
export async function signIn(browser: Browser, app: TestApp, token: string, viewport = { width: 1280, height: 800 }): Promise<UiSession> {
  const context = await browser.newContext({ viewport, baseURL: app.url });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto("/");
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/**
 * One file's setup: the UI built, an app and a browser started before its tests (`ready` gets both,
 * to keep them and add users), and both closed after them.
 */
export function browserSuite(ready: (app: TestApp, browser: Browser) => Promise<void> | void): void {
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  before(async () => {
    await ensureUiBuilt();
    app = await startApp();
    browser = await launchBrowser();
    await ready(app, browser);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });
}

export { startApp };
