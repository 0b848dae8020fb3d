/**
 * Attacks on the authorization server and the consent step. Each bad input gets the RFC's error
 * and nothing is issued. See docs/security-services.md §4.19.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { postMcp } from "../mcp/helpers.ts";
import { approve, authorizeUrl, Browser, FULL_CONSENT, issueTokens, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from "./helpers.ts";

let t: TestApp;
let olga: { user: { id: string }; token: string };
let mallory: { user: { id: string }; token: string };

before(async () => {
  t = await startApp();
  olga = await t.userWithToken("olga", { grants: ["knot.mcp"] });
  mallory = await t.userWithToken("mallory", { grants: ["knot.mcp"] });
});
after(() => t.close());

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } } };

async function connectionCount(): Promise<number> {
  return (await t.app.store.listTokens()).filter((tk) => tk.connection !== null).length;
}

test("unknown client and unregistered redirect URI: an error page, never a redirect (no open redirect)", async () => {
  const browser = new Browser(t.url);
  const unknown = await browser.fetch(authorizeUrl(t.url, { client_id: "no-such-client", code_challenge: pkcePair().challenge }));
  assert.equal(unknown.status, 400);
  assert.equal(unknown.headers.get("location"), null);
  assert.match(await unknown.text(), /invalid_client/);
  const client = (await registerClient(t.url)).body;
  for (const redirect of ["https://evil.example/callback", "http://127.0.0.1:9/callback/../x", "http://127.0.0.1:10/callback", `${REDIRECT_URI}?x=1`]) {
    const res = await browser.fetch(authorizeUrl(t.url, { client_id: client.client_id, code_challenge: pkcePair().challenge, redirect_uri: redirect }));
    assert.equal(res.status, 400, redirect);
    assert.equal(res.headers.get("location"), null, redirect);
  }
});

test("registration refuses redirect URIs with fragments and non-URLs", async () => {
  for (const redirect_uris of [["https://a.example/cb#frag"], ["not a url"], []]) {
    const res = await registerClient(t.url, { redirect_uris });
    assert.equal(res.status, 400, JSON.stringify(redirect_uris));
    assert.match(String(res.body.error), /^invalid_(redirect_uri|client_metadata)$/);
    assert.equal(res.body.client_id, undefined);
  }
});

test("registration refuses a plain http redirect URI that is not loopback (OAuth 2.1: https, or http to the client's own machine)", async () => {
  for (const redirect_uris of [["http://evil.example/callback"], ["http://10.0.0.5/cb"], ["https://ok.example/cb", "http://ok.example/cb"], ["http://127.0.0.1.evil.example/cb"], ["http://localhost.evil.example/cb"]]) {
    const res = await registerClient(t.url, { redirect_uris });
    assert.equal(res.status, 400, JSON.stringify(redirect_uris));
    assert.equal(res.body.error, "invalid_redirect_uri", JSON.stringify(redirect_uris));
    assert.match(String(res.body.error_description), /https|loopback/, JSON.stringify(res.body));
    assert.equal(res.body.client_id, undefined);
  }
  for (const redirect_uris of [["https://assistant.example/oauth/callback"], ["http://127.0.0.1:8123/cb"], ["http://[::1]/cb"], ["http://localhost:3000/cb"]]) {
    const res = await registerClient(t.url, { redirect_uris });
    assert.equal(res.status, 201, `${JSON.stringify(redirect_uris)}: ${JSON.stringify(res.body)}`);
  }
  // A bad value of another shape is still the library's to refuse, with its own error.
  assert.equal((await registerClient(t.url, { redirect_uris: "http://evil.example/cb" })).status, 400);
});

test("a native client's loopback redirect may change port (RFC 8252); a web client's may not", async () => {
  const native = (await registerClient(t.url, { application_type: "native", redirect_uris: ["http://127.0.0.1/callback"] })).body;
  const browser = new Browser(t.url);
  const ok = await browser.fetch(authorizeUrl(t.url, { client_id: native.client_id, code_challenge: pkcePair().challenge, redirect_uri: "http://127.0.0.1:53123/callback" }));
  assert.equal(ok.status, 303);
  assert.match(ok.headers.get("location") ?? "", /^\/oauth\/interaction\//);
});

test("PKCE is required, for confidential clients too: a missing challenge is refused at the client's redirect, state echoed untouched", async () => {
  const client = (await registerClient(t.url, { token_endpoint_auth_method: "client_secret_basic" })).body;
  assert.ok(client.client_secret);
  const state = "a b&c=d/é<>\"'";
  const noPkce = new URL(authorizeUrl(t.url, { client_id: client.client_id, state }));
  noPkce.searchParams.delete("code_challenge_method");
  const res = await new Browser(t.url).fetch(noPkce.href);
  const location = new URL(res.headers.get("location") ?? "about:blank");
  assert.equal(location.origin + location.pathname, REDIRECT_URI);
  assert.equal(location.searchParams.get("error"), "invalid_request");
  assert.equal(location.searchParams.get("state"), state);
  const plain = await new Browser(t.url).fetch(authorizeUrl(t.url, { client_id: client.client_id, code_challenge: "x".repeat(43), code_challenge_method: "plain" }));
  assert.equal(new URL(plain.headers.get("location")!).searchParams.get("error"), "invalid_request");
});

test("a wrong or missing PKCE verifier gets invalid_grant and no token", async () => {
  const client = (await registerClient(t.url)).body;
  const { challenge } = pkcePair();
  const { callback } = await approve(t.url, olga.token, { client_id: client.client_id, code_challenge: challenge, state: "keep me" });
  assert.equal(callback.searchParams.get("state"), "keep me");
  const code = callback.searchParams.get("code")!;
  const base = { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: client.client_id };
  const wrong = await tokenRequest(t.url, { ...base, code_verifier: pkcePair().verifier });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.error, "invalid_grant");
  assert.equal(wrong.body.access_token, undefined);
  const missing = await tokenRequest(t.url, base);
  assert.equal(missing.status, 400);
  assert.equal(missing.body.access_token, undefined);
});

test("a code is used once: replaying it fails and revokes the tokens it issued", async () => {
  const client = (await registerClient(t.url)).body;
  const { verifier, challenge } = pkcePair();
  const { callback } = await approve(t.url, olga.token, { client_id: client.client_id, code_challenge: challenge });
  const form = { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id };
  const first = await tokenRequest(t.url, form);
  assert.equal(first.status, 200);
  assert.notEqual((await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${first.body.access_token}` })).status, 401);
  const replay = await tokenRequest(t.url, form);
  assert.equal(replay.status, 400);
  assert.equal(replay.body.error, "invalid_grant");
  assert.equal((await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${first.body.access_token}` })).status, 401, "the replay revoked what the code issued");
});

test("a replayed refresh token revokes the whole family and the connection, and is audited", async () => {
  const { client, tokens, connectionId } = await issueTokens(t.url, olga.token);
  const rotated = await tokenRequest(t.url, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: client.client_id });
  assert.equal(rotated.status, 200);
  const replay = await tokenRequest(t.url, { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: client.client_id });
  assert.equal(replay.status, 400);
  assert.equal(replay.body.error, "invalid_grant");
  const next = await tokenRequest(t.url, { grant_type: "refresh_token", refresh_token: rotated.body.refresh_token, client_id: client.client_id });
  assert.equal(next.body.error, "invalid_grant", "the rotated refresh token died with its family");
  assert.equal((await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${rotated.body.access_token}` })).status, 401);
  const end = Date.now() + 3000;
  while ((await t.app.store.getToken(connectionId))?.revokedAt == null && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  assert.ok((await t.app.store.getToken(connectionId))?.revokedAt, "the connection is revoked");
  const audited = async () => (await t.app.store.queryAudit({ tool: "oauth.replay_revoked" })).some((r) => r.tokenId === connectionId);
  while (!(await audited()) && Date.now() < end + 3000) await new Promise((r) => setTimeout(r, 50));
  assert.ok(await audited(), "the replay revocation is audited under the connection");
});

test("tokens are bound to this server's /mcp (RFC 8707): another resource is invalid_target", async () => {
  const client = (await registerClient(t.url)).body;
  const res = await new Browser(t.url).fetch(authorizeUrl(t.url, { client_id: client.client_id, code_challenge: pkcePair().challenge, resource: "https://other.example/mcp" }));
  assert.equal(new URL(res.headers.get("location")!).searchParams.get("error"), "invalid_target");
  const { verifier, challenge } = pkcePair();
  const { callback } = await approve(t.url, olga.token, { client_id: client.client_id, code_challenge: challenge });
  const swapped = await tokenRequest(t.url, { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id, resource: "https://other.example/mcp" });
  assert.equal(swapped.status, 400);
  assert.equal(swapped.body.access_token, undefined);
});

test("the consent form needs the CSRF header, a same-origin request, and the browser that started the authorization", async () => {
  const client = (await registerClient(t.url)).body;
  const before = await connectionCount();
  const browser = new Browser(t.url);
  await browser.signIn(olga.token);
  const interaction = await browser.openAuthorization(authorizeUrl(t.url, { client_id: client.client_id, code_challenge: pkcePair().challenge }));
  assert.equal((await browser.consent(interaction, "approve", FULL_CONSENT, {})).status, 403, "no CSRF header");
  assert.equal((await browser.consent(interaction, "approve", FULL_CONSENT, { "x-knot-csrf": "1", origin: "https://evil.example" })).status, 403, "cross-origin");
  // Mallory, signed in in her own browser, cannot approve olga's pending authorization by its uid.
  const other = new Browser(t.url);
  await other.signIn(mallory.token);
  const stolen = await other.consent(interaction, "approve", FULL_CONSENT);
  assert.equal(stolen.status, 404);
  assert.equal((await other.fetch(`${interaction}/details`)).status, 404);
  assert.equal(await connectionCount(), before, "nothing was issued");
});

test("a scoped sign-in cannot approve, and the form cannot lend what the person does not hold", async () => {
  const client = (await registerClient(t.url)).body;
  const before = await connectionCount();
  const scopedToken = await t.token(olga.user as never, { permissions: ["knot.mcp"], write: true });
  const scoped = new Browser(t.url);
  await scoped.signIn(scopedToken);
  const interaction = await scoped.openAuthorization(authorizeUrl(t.url, { client_id: client.client_id, code_challenge: pkcePair().challenge }));
  const refused = await scoped.consent(interaction, "approve", FULL_CONSENT);
  assert.equal(refused.status, 403);

  const browser = new Browser(t.url);
  await browser.signIn(olga.token);
  const mine = await browser.openAuthorization(authorizeUrl(t.url, { client_id: client.client_id, code_challenge: pkcePair().challenge }));
  for (const bad of [{ ...FULL_CONSENT, permissions: ["*"] }, { ...FULL_CONSENT, permissions: ["plugin.demo.view_dashboard"] }, { ...FULL_CONSENT, write: "yes" }, { ...FULL_CONSENT, expiresInDays: 100000 }]) {
    const res = await browser.consent(mine, "approve", bad);
    assert.equal(res.status, 400, JSON.stringify(bad));
    assert.equal(res.body.code, "INVALID_ARGUMENT");
  }
  assert.equal(await connectionCount(), before, "nothing was issued");
});

test("a refusal sends access_denied back to the client, is audited, and issues nothing", async () => {
  const client = (await registerClient(t.url)).body;
  const before = await connectionCount();
  const browser = new Browser(t.url);
  await browser.signIn(olga.token);
  const interaction = await browser.openAuthorization(authorizeUrl(t.url, { client_id: client.client_id, code_challenge: pkcePair().challenge, state: "st" }));
  const denied = await browser.consent(interaction, "deny");
  const back = await browser.followToClient(denied.body.redirectTo);
  assert.equal(back.searchParams.get("error"), "access_denied");
  assert.equal(back.searchParams.get("state"), "st");
  assert.equal(back.searchParams.get("code"), null);
  assert.equal(await connectionCount(), before);
  assert.ok((await t.app.store.queryAudit({ tool: "oauth.deny" })).some((r) => r.userId === olga.user.id));
});

test("oversized and malformed bodies at the token and registration endpoints are refused; the server stays up", async () => {
  const big = "x".repeat(2_000_000);
  const token = await fetch(`${t.url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant_type=${big}` });
  assert.equal(token.status, 400);
  assert.equal(((await token.json()) as { error: string }).error, "invalid_request");
  const reg = await registerClient(t.url, { client_name: big });
  assert.equal(reg.status, 400);
  const malformed = await fetch(`${t.url}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
  assert.equal(malformed.status, 400);
  const script = await registerClient(t.url, { redirect_uris: ["javascript:alert(1)"] });
  assert.equal(script.status, 400);
  assert.equal(script.body.error, "invalid_redirect_uri");
  assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
});
