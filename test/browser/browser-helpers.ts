/**
 * Browser tests' setup: the UI bundle built once per process, an app on 127.0.0.1:0 with the
 * example plugins plus one that fails to load, and the Chromium that `npm ci` brings (the npm package
 * @sparticuz/chromium, see ../helpers/chromium.ts) driven by playwright-core. Screenshots go to test-artifacts/screenshots/ (kept out of git).
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { buildUi } from "../../ui/build.ts";
import { chromiumLaunch } from "../helpers/chromium.ts";
import { EXAMPLE_PLUGINS, manifest, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";

export const SCREENSHOTS = path.resolve(import.meta.dirname, "../../test-artifacts/screenshots");
const DIST = path.resolve(import.meta.dirname, "../../ui/dist");

let built: Promise<unknown> | null = null;
/** Builds the UI unless a build newer than every source file is there already. */
export function ensureUiBuilt(): Promise<unknown> {
  built ??= (async () => {
    const index = path.join(DIST, "index.html");
    const builtAt = fs.existsSync(index) && fs.existsSync(path.join(DIST, "assets/app.js")) ? fs.statSync(index).mtimeMs : 0;
    const src = path.resolve(import.meta.dirname, "../../ui");
    const newest = fs.readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !path.join(e.parentPath, e.name).includes(`${path.sep}dist${path.sep}`))
      .reduce((max, e) => Math.max(max, fs.statSync(path.join(e.parentPath, e.name)).mtimeMs), 0);
    if (builtAt < newest) await buildUi();
  })();
  return built;
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

export { startApp };
