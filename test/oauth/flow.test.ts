/** The hosted-client flow end to end over real HTTP, with the real MCP SDK client's OAuth. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { postMcp, toolNames, writeMcpPlugins } from "../mcp/helpers.ts";
import { approve, connectOverOAuth, issueTokens, pkcePair, registerClient, tokenRequest } from "./helpers.ts";

let t: TestApp;
let person: { user: { id: string }; token: string };

before(async () => {
  const plugins = writeMcpPlugins();
  t = await startApp({ pluginsDir: plugins.dir, config: { plugins: { tools: { marker: plugins.marker } } } });
  person = await t.userWithToken("olga", { grants: ["knot.mcp", "plugin.tools.ops", "knot.tools.author"] });
});
after(() => t.close());

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } } };

test("a 401 on /mcp points to the protected-resource metadata, which names this server as authorization server", async () => {
  const anonymous = await postMcp(t.url, INITIALIZE);
  assert.equal(anonymous.status, 401);
  const challenge = anonymous.headers.get("www-authenticate") ?? "";
  assert.match(challenge, /^Bearer /);
  assert.ok(challenge.includes(`resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`), challenge);
  assert.ok(!challenge.includes("invalid_token"), "no token was presented");
  const badToken = await postMcp(t.url, INITIALIZE, { authorization: "Bearer not-a-token" });
  assert.match(badToken.headers.get("www-authenticate") ?? "", /error="invalid_token"/);

  for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
    const prm = await request(`${t.url}${path}`, null);
    assert.equal(prm.status, 200);
    assert.equal(prm.body.resource, `${t.url}/mcp`);
    assert.deepEqual(prm.body.authorization_servers, [t.url]);
  }
  const as = await request(`${t.url}/.well-known/oauth-authorization-server`, null);
  assert.equal(as.status, 200);
  assert.equal(as.body.issuer, t.url);
  assert.deepEqual(as.body.code_challenge_methods_supported, ["S256"]);
  assert.equal(as.body.registration_endpoint, `${t.url}/oauth/register`);
  assert.equal(as.body.revocation_endpoint, `${t.url}/oauth/revoke`);
  assert.equal(as.body.client_id_metadata_document_supported, true);
  assert.deepEqual(as.body.response_types_supported, ["code"]);
});

test("a hosted client connects (discovery, registration, PKCE, consent) and lists exactly the lent scopes", async () => {
  const { client, oauth, callback, connectionId } = await connectOverOAuth(t.url, person.token, { permissions: ["plugin.stats.*"], userTools: false, write: false, expiresInDays: 7 });
  assert.equal(callback.origin + callback.pathname, "http://127.0.0.1:9/callback");
  assert.ok(oauth.saved?.access_token && oauth.saved.refresh_token);
  const names = await toolNames(client);
  assert.ok(names.includes("stats_ping"), names.join());
  for (const hidden of ["ops_report", "open_echo", "list_user_tools"]) assert.ok(!names.includes(hidden), `${hidden} was not lent`);
  // user ∩ scopes: the area is lent, but olga was never granted plugin.stats.read.
  assert.ok(!names.includes("stats_read"));
  // Calling what was not lent is refused before any code runs, as for any scoped token.
  await assert.rejects(client.callTool({ name: "ops_report", arguments: {} }), /Unknown tool: ops_report/);
  await client.callTool({ name: "stats_ping", arguments: {} });
  const [row] = await t.app.store.queryAudit({ tool: "stats_ping", limit: 1 });
  assert.equal(row?.tokenId, connectionId);
  assert.match(row?.client ?? "", /^Test Assistant/);
  const connection = await t.app.store.getToken(connectionId);
  assert.deepEqual(connection?.scopes, { permissions: ["knot.mcp", "plugin.stats.*"], write: false });
  assert.equal(connection?.connection?.clientName, "Test Assistant");
  assert.ok(connection?.expiresAt && Date.parse(connection.expiresAt) - Date.now() <= 7 * 86_400_000);
  await client.close();
});

test("the user ∩ scopes rule holds for a connection: lending a permission the user lacks is refused", async () => {
  const { tokens } = await issueTokens(t.url, person.token, { permissions: ["plugin.tools.*"], userTools: true, write: true, expiresInDays: 1 });
  const me = await postMcp(t.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { authorization: `Bearer ${tokens.access_token}` });
  assert.notEqual(me.status, 401);
  await assert.rejects(issueTokens(t.url, person.token, { permissions: ["plugin.tools.secret"], userTools: false, write: false, expiresInDays: 1 }), /INVALID_ARGUMENT|not one of your permissions/);
});

test("refresh rotates the refresh token and is audited; the access token works only on /mcp", async () => {
  const { tokens, connectionId } = await issueTokens(t.url, person.token);
  const refreshed = await tokenRequest(t.url, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: (await t.app.store.getToken(connectionId))!.connection!.clientId });
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  assert.notEqual(refreshed.body.refresh_token, tokens.refresh_token);
  assert.notEqual(refreshed.body.access_token, tokens.access_token);
  await waitFor(async () => (await t.app.store.queryAudit({ tool: "oauth.refresh" })).some((r) => r.tokenId === connectionId));
  for (const path of ["/api/me", "/api/tools", "/plugins/tools/ops_report"]) {
    assert.equal((await request(`${t.url}${path}`, refreshed.body.access_token)).status, 401, `${path} refuses OAuth access tokens`);
  }
});

test("revoking a connection on the Tokens API kills its access and refresh tokens and its open MCP sessions", async () => {
  const { client, oauth, connectionId } = await connectOverOAuth(t.url, person.token);
  assert.ok(t.app.mcp.sessions.of([person.user.id]).some((s) => s.tokenId === connectionId));
  const listed = await request(`${t.url}/api/tokens`, person.token);
  const row = listed.body.tokens.find((tk: { id: string }) => tk.id === connectionId);
  assert.equal(row.connection.clientName, "Test Assistant");
  const renamed = await request(`${t.url}/api/tokens/${connectionId}`, person.token, { method: "PATCH", body: JSON.stringify({ name: "My assistant" }) });
  assert.equal(renamed.body.token.name, "My assistant");

  const revoked = await request(`${t.url}/api/tokens/${connectionId}`, person.token, { method: "DELETE" });
  assert.equal(revoked.body.revoked, true);
  assert.ok(!t.app.mcp.sessions.of([person.user.id]).some((s) => s.tokenId === connectionId), "its sessions are closed");
  const after = await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${oauth.saved!.access_token}` });
  assert.equal(after.status, 401);
  const refresh = await tokenRequest(t.url, { grant_type: "refresh_token", refresh_token: oauth.saved!.refresh_token!, client_id: String(oauth.info!.client_id) });
  assert.equal(refresh.status, 400);
  assert.equal(refresh.body.error, "invalid_grant");
  assert.ok((await t.app.store.queryAudit({ tool: "oauth.revoke" })).some((r) => r.userId === person.user.id));
  assert.ok((await t.app.store.queryAudit({ tool: "oauth.approve" })).length > 0);
  await client.close().catch(() => {});
});

async function waitFor(check: () => Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a connection's token name follows the token rules whatever the client calls itself: never the session name, at most 100 characters", async () => {
  for (const clientName of ["web session", "A".repeat(5_000)]) {
    const client = (await registerClient(t.url, { client_name: clientName })).body;
    const { connectionId } = await approve(t.url, person.token, { client_id: client.client_id, code_challenge: pkcePair().challenge });
    const row = (await request(`${t.url}/api/tokens`, person.token)).body.tokens.find((tk: { id: string }) => tk.id === connectionId);
    assert.ok(row.name.length >= 1 && row.name.length <= 100, `${row.name.length} characters`);
    assert.notEqual(row.name, "web session");
    assert.notEqual(row.session, true, "an OAuth connection is no sign-in session");
    const renamed = await request(`${t.url}/api/tokens/${connectionId}`, person.token, { method: "PATCH", body: JSON.stringify({ name: "Renamed" }) });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  }
});
