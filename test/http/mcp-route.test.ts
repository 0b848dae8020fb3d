/**
 * `/mcp` as a route of the one server: it takes bearer tokens only (a valid session cookie is not
 * a credential there, and the 401 carries the OAuth challenge), refusals stay JSON-RPC, and an
 * open notification stream (GET /mcp) does not hold a graceful shutdown.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { startApp, type TestApp } from "../helpers/fixtures.ts";

const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
const ACCEPT = "application/json, text/event-stream";

describe("/mcp as an ordinary route", () => {
  let t: TestApp;
  let token: string;
  let session: string;
  before(async () => {
    t = await startApp({ config: { shutdownGraceMs: 20_000 } });
    const alice = await t.user("alice", { admin: true });
    token = await t.token(alice);
    session = mintSecret("kts_");
    await t.app.store.createToken({ userId: alice.id, name: "web session", secretHash: hashSecret(session), scopes: null, expiresAt: null });
  });
  after(() => t.close());

  it("a session cookie that signs in on /api is no credential on /mcp: 401 JSON-RPC with the OAuth challenge", async () => {
    const cookie = `knot_session=${session}`;
    assert.equal((await fetch(`${t.url}/api/tools`, { headers: { cookie } })).status, 200, "the cookie is a valid session");
    const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: { cookie, "content-type": "application/json", accept: ACCEPT }, body: JSON.stringify(INIT) });
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer realm="knot-tools", resource_metadata="/);
    const body = (await res.json()) as { jsonrpc: string; error: { code: number; message: string; data: { code: string } } };
    assert.equal(body.jsonrpc, "2.0");
    assert.deepEqual(body.error, { code: -32001, message: "a valid bearer token is required", data: { code: "UNAUTHENTICATED" } });
  });

  it("a body over the limit is a JSON-RPC 413 that closes the connection", async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: ACCEPT },
      body: JSON.stringify({ ...INIT, padding: "x".repeat(t.app.config.maxBodyBytes) }),
    });
    assert.equal(res.status, 413);
    assert.equal(res.headers.get("connection"), "close");
    const body = (await res.json()) as { error: { code: number; data: { code: string } } };
    assert.equal(body.error.code, -32600);
    assert.equal(body.error.data.code, "PAYLOAD_TOO_LARGE");
  });

  it("an open GET /mcp stream does not hold a graceful shutdown (shutdown_grace_ms is 20 s here)", async () => {
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: ACCEPT, "mcp-protocol-version": "2025-11-25" };
    const init = await fetch(`${t.url}/mcp`, { method: "POST", headers, body: JSON.stringify(INIT) });
    assert.equal(init.status, 200);
    const sessionId = init.headers.get("mcp-session-id");
    assert.ok(sessionId, "a session was opened");
    await init.body?.cancel();
    const stream = await fetch(`${t.url}/mcp`, { headers: { ...headers, accept: "text/event-stream", "mcp-session-id": sessionId } });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get("content-type") ?? "", /text\/event-stream/);
    const started = performance.now();
    await t.app.close();
    const took = performance.now() - started;
    assert.ok(took < 8_000, `close took ${Math.round(took)} ms: the stream was waited for`);
    await stream.body?.cancel().catch(() => {});
  });
});
