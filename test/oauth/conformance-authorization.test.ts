/**
 * The official conformance suite's authorization-server scenarios (@modelcontextprotocol/conformance
 * 0.2.0-alpha.12, `authorization` mode; 0.1.16 has none) against the real server:
 * `authorization-server-metadata-endpoint`, and `authorization-code-grant` with a person approving
 * in the project's Chromium (the suite prints the authorization URL and waits on its own callback).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { ensureUiBuilt, launchBrowser } from "../browser/browser-helpers.ts";
import { startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { registerClient } from "./helpers.ts";

const SUITE = path.resolve(import.meta.dirname, "../../node_modules/@modelcontextprotocol/conformance/dist/index.js");

let app: TestApp;
let person: string;

before(async () => {
  await ensureUiBuilt();
  app = await startApp();
  person = (await app.userWithToken("casey", { grants: ["knot.mcp"] })).token;
});
after(() => app?.close());

interface Run {
  readonly child: ChildProcess;
  output: string;
  readonly exited: Promise<number | null>;
}

/** One scenario, or (null) both: authorization-code-grant reads the metadata the first one fetched. */
function runScenario(scenario: string | null, extra: string[] = []): Run {
  const only = scenario === null ? [] : ["--scenario", scenario];
  const child = spawn(process.execPath, [SUITE, "authorization", "--url", app.url, ...only, "-o", tempDir("knot-as-conformance-"), ...extra], { stdio: ["ignore", "pipe", "pipe"] });
  const run: Run = { child, output: "", exited: new Promise((resolve) => child.once("exit", resolve)) };
  child.stdout!.on("data", (d: Buffer) => (run.output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (run.output += d.toString()));
  return run;
}

/** The checks the suite wrote (checks.json under the output folder). */
function checksOf(run: Run): { id: string; status: string; errorMessage?: string }[] {
  const dir = (run.child.spawnargs[run.child.spawnargs.indexOf("-o") + 1])!;
  const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name === "checks.json");
  return files.flatMap((f) => JSON.parse(fs.readFileSync(path.join(f.parentPath, f.name), "utf8")) as { id: string; status: string }[]);
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("authorization-server-metadata-endpoint passes", { timeout: 60_000 }, async () => {
  const run = runScenario("authorization-server-metadata-endpoint");
  const code = await run.exited;
  const checks = checksOf(run);
  assert.ok(checks.length > 0, run.output);
  for (const check of checks) assert.equal(check.status, "SUCCESS", `${check.id}: ${check.errorMessage ?? ""}\n${run.output}`);
  assert.equal(code, 0, run.output);
});

test("both scenarios, with authorization-code-grant's person approving in Chromium, pass", { timeout: 120_000 }, async () => {
  const port = await freePort();
  const client = (await registerClient(app.url, { client_name: "Conformance Suite", redirect_uris: [`http://127.0.0.1:${port}/callback`] })).body;
  const run = runScenario(null, ["--client-id", client.client_id, "--resource", `${app.url}/mcp`, "--port", String(port)]);
  let browser: Browser | null = null;
  try {
    const authorizationUrl = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const line = run.output.split("\n").find((l) => l.startsWith(`${app.url}/oauth/authorize?`));
        if (line) {
          clearInterval(timer);
          resolve(line.trim());
        }
      }, 100);
      void run.exited.then(() => {
        clearInterval(timer);
        reject(new Error(`the suite exited before printing the URL:\n${run.output}`));
      });
    });
    browser = await launchBrowser();
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(authorizationUrl);
    await page.getByLabel("API token").fill(person);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Connect Conformance Suite?" }).waitFor();
    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL((url) => url.href.startsWith(`http://127.0.0.1:${port}/callback`));
    const code = await run.exited;
    const checks = checksOf(run);
    for (const id of ["authorization-server-metadata", "authorization-code-grant"]) assert.ok(checks.some((c) => c.id === id), `${id} ran:\n${run.output}`);
    for (const check of checks) assert.equal(check.status, "SUCCESS", `${check.id}: ${check.errorMessage ?? ""}\n${run.output}`);
    assert.equal(code, 0, run.output);
  } finally {
    await browser?.close();
    run.child.kill();
  }
});
