/**
 * A hosted assistant connects over OAuth with a person approving in a real browser (the project's
 * Chromium via playwright-core): the MCP SDK client is sent to authorize after its 401 (discovery,
 * registration, PKCE, `resource`), the person signs in on the consent page, lends the demo area
 * only, approves; the client exchanges the code, lists exactly what was lent, refreshes, and the
 * connection shows on the Tokens page. Callbacks given to page.evaluate are not used (no DOM types).
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser } from "playwright-core";
import type { TestApp } from "../helpers/fixtures.ts";
import { TestOAuthClient, tokenRequest } from "../oauth/helpers.ts";
import { ensureUiBuilt, launchBrowser, screenshot, startApp } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;
let pia: string;
let callbackServer: http.Server;
let callbackUrl = "";
const callbacks: URL[] = [];

before(async () => {
  await ensureUiBuilt();
  app = await startApp();
  pia = (await app.userWithToken("pia", { grants: ["knot.mcp", "plugin.demo.view_dashboard", "plugin.metrics.export", "knot.tools.author"] })).token;
  // The assistant's redirect target: records where the browser was sent back to.
  callbackServer = http.createServer((req, res) => {
    callbacks.push(new URL(req.url ?? "/", callbackUrl));
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this window.");
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  callbackServer?.close();
  await app?.close();
});

test("an assistant connects after a person approves in the browser, with exactly the lent scopes, and refreshes", async () => {
  const oauth = new TestOAuthClient("Browser Assistant", { redirectUri: callbackUrl });
  const first = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: oauth });
  await assert.rejects(new Client({ name: "hosted", version: "1" }).connect(first), UnauthorizedError);
  assert.ok(oauth.authorizationUrl, "the 401 sent the client to authorize");
  assert.equal(oauth.authorizationUrl.searchParams.get("resource"), `${app.url}/mcp`);
  assert.equal(oauth.authorizationUrl.searchParams.get("code_challenge_method"), "S256");

  const context = await browser.newContext({ baseURL: app.url, viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(oauth.authorizationUrl.href);
  assert.match(new URL(page.url()).pathname, /^\/oauth\/interaction\//);
  // Not signed in yet: the existing token sign-in comes first, then the consent page.
  await page.getByLabel("API token").fill(pia);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Connect Browser Assistant?" }).waitFor();
  assert.equal(await page.locator("[data-redirect-host]").textContent(), new URL(callbackUrl).host);
  assert.equal(await page.getByRole("button", { name: "Approve" }).isEnabled(), true);
  await page.locator('[data-area="demo"]').getByLabel("All of demo that you may use").check();
  await page.getByLabel("Expires").selectOption("7");
  await screenshot(page, "oauth-consent");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL((url) => url.href.startsWith(callbackUrl));
  const back = callbacks.at(-1)!;
  assert.equal(back.searchParams.get("state") !== null, true);
  const code = back.searchParams.get("code");
  assert.ok(code, `the browser came back with a code: ${back.href}`);

  await first.finishAuth(code);
  const client = new Client({ name: "hosted", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: oauth }));
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes("echo_word"), names.join());
  for (const notLent of ["export_metrics", "list_user_tools", "save_user_tool"]) assert.ok(!names.includes(notLent), `${notLent} was not lent`);
  await client.close();

  // Refresh: a new pair, and the new access token lists the same tools.
  const refreshed = await tokenRequest(app.url, { grant_type: "refresh_token", refresh_token: oauth.saved!.refresh_token!, client_id: String(oauth.info!.client_id) });
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  oauth.saveTokens(refreshed.body as never);
  const again = new Client({ name: "hosted", version: "1" });
  await again.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: oauth }));
  assert.deepEqual((await again.listTools()).tools.map((t) => t.name).sort(), [...names].sort());
  await again.close();

  // The person sees the connection on the Tokens page.
  await page.goto("/#/tokens");
  await page.locator('[data-connection="Browser Assistant"]').waitFor();
  await screenshot(page, "oauth-tokens-connection");
  await context.close();
});
