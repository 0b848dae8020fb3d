/**
 * /mcp over Streamable HTTP: bearer auth (401 + WWW-Authenticate), the knot.mcp permission,
 * DNS-rebinding protection, sessions bound to the user who opened them, and the stateless mode.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, INITIALIZE, postMcp, saveUserTool, toolNames } from "./helpers.ts";

/** node:http, because fetch will not send a forged Host header. */
function rawPost(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const target = new URL(`${url}/mcp`);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: target.hostname, port: target.port, path: "/mcp", method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text.startsWith("{") ? JSON.parse(text) : text }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const TOOLS_CALL = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo_word", arguments: { word: "x", password: "hunter2" } } };

describe("MCP over Streamable HTTP (stateful)", () => {
  let t: TestApp;
  const tokens: Record<string, string> = {};
  let userIds: Record<string, string> = {};

  before(async () => {
    t = await startApp({ config: { mcp: { stateless: false, allowedHosts: ["mcp.example.test"], corsOrigins: ["https://app.example.test"] } } });
    const alice = await t.userWithToken("alice", { grants: ["knot.mcp"] });
    const bob = await t.userWithToken("bob", { grants: ["knot.mcp"] });
    const nomcp = await t.userWithToken("nomcp");
    const admin = await t.userWithToken("root", { admin: true });
    tokens.alice = alice.token;
    tokens.bob = bob.token;
    tokens.nomcp = nomcp.token;
    tokens.admin = admin.token;
    tokens.scopedAdmin = await t.token(admin.user, { permissions: ["plugin.*"], write: true });
    userIds = { alice: alice.user.id, nomcp: nomcp.user.id, bob: bob.user.id };
  });
  after(() => t.close());

  test("no or a bad token: 401 with WWW-Authenticate; a loopback token is not accepted on /mcp", async () => {
    const none = await postMcp(t.url, INITIALIZE);
    assert.equal(none.status, 401);
    assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer /);
    assert.equal(none.json.error.data.code, "UNAUTHENTICATED");
    assert.doesNotMatch(none.headers.get("www-authenticate") ?? "", /error=/, "no token presented: no error code (RFC 6750 §3.1)");
    const bad = await postMcp(t.url, INITIALIZE, { authorization: "Bearer kt_not-a-real-token" });
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get("www-authenticate") ?? "", /error="invalid_token"/, "a presented token that does not work");
    for (const authorization of ["Bearer kt_not-a-real-token junk", "bearer  ", "Bearer"]) {
      const malformed = await postMcp(t.url, INITIALIZE, { authorization });
      assert.equal(malformed.status, 401);
      assert.match(malformed.headers.get("www-authenticate") ?? "", /error="invalid_token"/, `a malformed bearer credential is a presented one: ${JSON.stringify(authorization)}`);
    }
    const principal = await t.app.auth.principalFor(userIds.alice!);
    const loopback = t.app.loopbackTokens.mint(principal!, "run-1", 10_000);
    assert.equal((await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${loopback.token}` })).status, 401);
    loopback.revoke();
  });

  test("OPTIONS /mcp answers a CORS preflight for a configured origin only; real answers carry the CORS headers", async () => {
    const preflight = (origin: string) => fetch(`${t.url}/mcp`, {
      method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, mcp-param-region, mcp-param-region_code, mcp-param-a.b, x-other, mcp-param-" },
    });
    const allowed = await preflight("https://app.example.test");
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get("access-control-allow-origin"), "https://app.example.test");
    assert.match(allowed.headers.get("access-control-allow-headers") ?? "", /authorization/);
    assert.match(allowed.headers.get("access-control-allow-headers") ?? "", /mcp-param-region/);
    // Every header name a tool may declare (the RFC 9110 token the load check allows), nothing else.
    const granted = (allowed.headers.get("access-control-allow-headers") ?? "").split(",").map((h) => h.trim());
    for (const name of ["mcp-param-region_code", "mcp-param-a.b"]) assert.ok(granted.includes(name), name);
    for (const name of ["x-other", "mcp-param-"]) assert.ok(!granted.includes(name), name);
    const other = await preflight("https://evil.example.test");
    assert.equal(other.headers.get("access-control-allow-origin"), null, "an origin not configured gets no CORS grant");
    const real = await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${tokens.alice}`, origin: "https://app.example.test" });
    assert.equal(real.status, 200);
    assert.equal(real.headers.get("access-control-allow-origin"), "https://app.example.test");
    assert.match(real.headers.get("access-control-expose-headers") ?? "", /mcp-session-id/);
    const refused = await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${tokens.alice}`, origin: "https://evil.example.test" });
    assert.equal(refused.status, 403, "the DNS-rebinding check still refuses other origins");
  });

  test("knot.mcp is required (admins pass; a scoped admin token must name it), and the refusal is audited", async () => {
    const refused = await postMcp(t.url, TOOLS_CALL, { authorization: `Bearer ${tokens.nomcp}` });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.error.data.code, "PERMISSION_DENIED");
    const row = (await t.app.store.queryAudit({ userId: userIds.nomcp!, limit: 1 }))[0];
    assert.equal(row?.tool, "echo_word");
    assert.equal(row?.outcome, "PERMISSION_DENIED");
    assert.match(String((row?.args as any).password), /^masked:/, "refused arguments are stored masked");
    assert.equal((await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${tokens.scopedAdmin}` })).status, 403);
    const { client } = await connect(t.url, tokens.admin!);
    assert.ok((await toolNames(client)).includes("echo_word"));
    await client.close();
  });

  test("DNS rebinding: a foreign Host or Origin is refused before authentication; allowed hosts pass", async () => {
    const port = new URL(t.url).port;
    const evilHost = await rawPost(t.url, INITIALIZE, { host: "evil.example.com", authorization: `Bearer ${tokens.alice}` });
    assert.equal(evilHost.status, 403);
    assert.equal(evilHost.body.error.data.code, "HOST_NOT_ALLOWED");
    const evilOrigin = await rawPost(t.url, INITIALIZE, { host: `localhost:${port}`, origin: "http://evil.example.com", authorization: `Bearer ${tokens.alice}` });
    assert.equal(evilOrigin.status, 403);
    const otherPort = await rawPost(t.url, INITIALIZE, { host: "localhost:1", authorization: `Bearer ${tokens.alice}` });
    assert.equal(otherPort.status, 403);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, "mcp.example.test"]) {
      const ok = await rawPost(t.url, INITIALIZE, { host, origin: `http://${host}`, authorization: `Bearer ${tokens.alice}` });
      assert.equal(ok.status, 200, host);
    }
  });

  test("a session is bound to the user who opened it; unknown sessions are 404, missing ones 400", async () => {
    const { client, transport } = await connect(t.url, tokens.alice!);
    const sessionId = transport.sessionId!;
    assert.ok(sessionId);
    assert.equal(t.app.mcp.sessions.get(sessionId)?.userId, userIds.alice);
    const headers = (token: string) => ({ authorization: `Bearer ${token}`, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" });
    const hijack = await postMcp(t.url, TOOLS_CALL, headers(tokens.bob!));
    assert.equal(hijack.status, 403);
    assert.match(hijack.json.error.message, /another user/);
    assert.equal((await t.app.store.queryAudit({ userId: userIds.bob!, limit: 1 }))[0]?.outcome, "PERMISSION_DENIED");
    const own = await postMcp(t.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, headers(tokens.alice!));
    assert.equal(own.status, 200);
    assert.ok(own.json.result.tools.length > 0);
    assert.equal((await postMcp(t.url, { jsonrpc: "2.0", id: 4, method: "tools/list" }, { authorization: `Bearer ${tokens.alice}`, "mcp-session-id": "nope" })).status, 404);
    assert.equal((await postMcp(t.url, { jsonrpc: "2.0", id: 5, method: "tools/list" }, { authorization: `Bearer ${tokens.alice}` })).status, 400);
    await transport.terminateSession();
    assert.equal(t.app.mcp.sessions.get(sessionId), null, "DELETE ends the session");
    await client.close();
  });

  test("a notification stream (GET) opens at once, and one its client dropped is freed: the session's next GET is served, not refused as a second stream", async () => {
    const { client, transport } = await connect(t.url, tokens.alice!);
    try {
      const headers = { authorization: `Bearer ${tokens.alice}`, "mcp-session-id": transport.sessionId!, "mcp-protocol-version": "2025-11-25", accept: "text/event-stream" };
      await transport.close(); // the client's own GET stream goes: the test opens its own
      for (let i = 0; i < 3; i += 1) {
        const ac = new AbortController();
        const started = performance.now();
        // A quiet stream sends nothing before its 15 s keep-alive: its headers must not wait for it.
        const res = await fetch(`${t.url}/mcp`, { headers, signal: AbortSignal.any([ac.signal, AbortSignal.timeout(5_000)]) });
        assert.equal(res.status, 200, `GET #${i + 1} on the session`);
        assert.ok(performance.now() - started < 5_000, "the stream's headers came at once");
        ac.abort();
        await new Promise((resolve) => setTimeout(resolve, 100)); // the server sees the socket close
      }
      // A method the session transport does not serve is refused as such (TRACE cannot even become a web Request).
      const trace = await new Promise<{ status: number; allow: string | undefined }>((resolve, reject) => {
        const target = new URL(`${t.url}/mcp`);
        http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "TRACE", headers: { authorization: headers.authorization, "mcp-session-id": headers["mcp-session-id"] } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, allow: res.headers.allow });
        }).on("error", reject).end();
      });
      assert.deepEqual(trace, { status: 405, allow: "GET, POST, DELETE" });
    } finally {
      await client.close();
    }
  });

  test("a token's scopes narrow the loopback calls of the user tools it runs", async () => {
    const carol = await t.user("carol", { grants: ["knot.mcp", "plugin.demo.view_dashboard"] });
    await saveUserTool(t, carol.id, { name: "via_loopback", code: `import { call } from "knot:plugin";\nimport { returnObject } from "knot:tool";\nexport default async function () { returnObject(await call("demo", "echo_word", { word: "w" })); }` });
    const wide = await t.token(carol, { permissions: ["knot.mcp", "knot.tools.run", "plugin.demo.*"], write: false });
    const narrow = await t.token(carol, { permissions: ["knot.mcp", "knot.tools.run"], write: false });
    const a = await connect(t.url, wide);
    assert.equal(((await a.client.callTool({ name: "via_loopback", arguments: {} })).structuredContent as any).by, "carol");
    const b = await connect(t.url, narrow);
    const refused = await b.client.callTool({ name: "via_loopback", arguments: {} });
    assert.equal(refused.isError, true);
    assert.equal((refused._meta as any)["knot-tools/errorCode"], "PERMISSION_DENIED");
    await Promise.all([a.client.close(), b.client.close()]);
  });

  test("a malformed body is a JSON-RPC parse error", async () => {
    const res = await fetch(`${t.url}/mcp`, { method: "POST", body: "{nope", headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json", accept: "application/json, text/event-stream" } });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32700);
  });
});

describe("MCP over Streamable HTTP (stateless)", () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await startApp({ config: { mcp: { stateless: true, allowedHosts: [] } } });
    token = (await t.userWithToken("sam", { grants: ["knot.mcp"] })).token;
  });
  after(() => t.close());

  test("lists and calls without sessions; GET is 405", async () => {
    const { client, transport } = await connect(t.url, token);
    assert.equal(transport.sessionId, undefined);
    assert.ok((await toolNames(client)).includes("echo_word"));
    const result = await client.callTool({ name: "echo_word", arguments: { word: "stateless" } });
    assert.equal((result.structuredContent as any).word, "stateless");
    assert.equal(t.app.mcp.sessions.size, 0);
    const get = await fetch(`${t.url}/mcp`, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } });
    assert.equal(get.status, 405);
    await client.close();
  });
});
