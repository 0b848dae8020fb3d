/**
 * mcp-remote 0.15.1 (the stdio↔HTTP bridge desktop assistants use, `npx mcp-remote <url>`) runs its
 * whole OAuth flow against the server: discovery from the 401, registration, PKCE, its own
 * callback server; the browser step is a person approving in the project's Chromium. Then MCP over
 * its stdio reaches /mcp as that person with the lent scopes.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { after, before, test } from "node:test";
import { ensureUiBuilt, launchBrowser } from "../browser/browser-helpers.ts";
import { startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";

const MCP_REMOTE = path.resolve(import.meta.dirname, "../../node_modules/mcp-remote/dist/proxy.js");

let app: TestApp;
let person: string;

before(async () => {
  await ensureUiBuilt();
  app = await startApp();
  person = (await app.userWithToken("remy", { grants: ["knot.mcp", "plugin.demo.view_dashboard", "plugin.metrics.export"] })).token;
});
after(() => app?.close());

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("mcp-remote completes its OAuth flow (browser step automated) and lists the lent tools", { timeout: 120_000 }, async () => {
  const callbackPort = await freePort();
  const child = spawn(process.execPath, [MCP_REMOTE, `${app.url}/mcp`, String(callbackPort), "--allow-http", "--host", "127.0.0.1"], {
    stdio: ["pipe", "pipe", "pipe"],
    // Its token store, kept out of the home folder; BROWSER=true makes `open` a no-op (no desktop here).
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: tempDir("knot-mcp-remote-"), BROWSER: "true" },
  });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const until = async <T>(what: string, find: () => T | null | undefined, ms = 60_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const found = find();
      if (found) return found;
      if (Date.now() > end || child.exitCode !== null) throw new Error(`mcp-remote: no ${what}\n--- stderr:\n${stderr}\n--- stdout:\n${stdout}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const browser = await launchBrowser();
  try {
    const authorizationUrl = await until("authorization URL", () => /Please authorize this client by visiting:\s*(\S+)/.exec(stderr)?.[1]);
    assert.ok(authorizationUrl.startsWith(`${app.url}/oauth/authorize?`), authorizationUrl);
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(authorizationUrl);
    await page.getByLabel("API token").fill(person);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: /^Connect .+\?$/ }).waitFor();
    await page.locator('[data-area="demo"]').getByLabel("All of demo that you may use").check();
    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL((url) => url.port === String(callbackPort));
    await until("proxy", () => stderr.includes("Proxy established successfully"));

    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const reply = (id: number) => until(`reply ${id}`, () => stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as { id?: number; result?: any }).find((m) => m.id === id));
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "desktop-assistant", version: "1.0.0" } } });
    assert.ok((await reply(1)).result?.serverInfo, "initialized");
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    const names = ((await reply(2)).result.tools as { name: string }[]).map((t) => t.name);
    assert.ok(names.includes("echo_word"), names.join());
    assert.ok(!names.includes("export_metrics"), "metrics was not lent");
    const connection = (await app.app.store.listTokens()).find((t) => t.connection !== null);
    assert.match(connection?.connection?.clientName ?? "", /mcp-remote|MCP/i);
  } finally {
    await browser.close();
    child.kill();
    await exited;
  }
});
