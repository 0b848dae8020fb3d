/**
 * Attack: use a credential after it was revoked, counting on the server's in-memory cache of
 * token principals (issue 13 speed work) to still hold the old answer. Guarantee: the cache is
 * valid only while the store's change mark holds, so a revocation or a grant change takes effect
 * on the very next request — made on this server, or by another process (the CLI) on the same
 * SQLite file — over /mcp (both revisions) and the HTTP API alike.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { cli } from "../helpers/cli.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { modernCall } from "./modern-client.ts";
import { connect } from "./helpers.ts";

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const db = () => t.app.config.database;

/** Calls often enough that the principal is surely cached (and the cache is hit). */
async function warm(token: string): Promise<void> {
  for (let i = 0; i < 3; i++) assert.equal((await request(`${t.url}/api/me`, token)).status, 200);
}

it("a token revoked by another process (the CLI) is refused on the next /mcp and HTTP request", async () => {
  const { user, token } = await t.userWithToken("rita", { grants: ["knot.mcp", "plugin.demo.view_dashboard"] });
  const { client } = await connect(t.url, token);
  try {
    await warm(token);
    assert.equal((await client.callTool({ name: "echo_word", arguments: { word: "before" } })).isError, undefined);
    const id = (await t.app.store.listTokens(user.id))[0]!.id;
    const revoked = cli(["tokens", "revoke", id, "--db", db()]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((await request(`${t.url}/api/me`, token)).status, 401);
    const modern = await modernCall(t.url, token, "tools/call", { name: "echo_word", arguments: { word: "after" } });
    assert.equal(modern.status, 401);
    await assert.rejects(client.callTool({ name: "echo_word", arguments: { word: "after" } }));
  } finally {
    await client.close().catch(() => {});
  }
});

it("knot.mcp revoked by another process is refused on the next call; granted again, it works at once", async () => {
  const { token } = await t.userWithToken("gina", { grants: ["knot.mcp", "plugin.demo.view_dashboard"] });
  const call = () => modernCall(t.url, token, "tools/call", { name: "echo_word", arguments: { word: "x" } });
  await warm(token);
  assert.equal((await call()).status, 200);
  assert.equal(cli(["revoke", "gina", "knot.mcp", "--db", db()]).code, 0);
  assert.equal((await call()).status, 403);
  assert.equal(cli(["grant", "gina", "knot.mcp", "--db", db()]).code, 0);
  assert.equal((await call()).status, 200);
});

it("a token revoked on this server (the Tokens API) is refused on the very next request", async () => {
  const { user, token } = await t.userWithToken("tom", { grants: ["knot.mcp", "plugin.demo.view_dashboard"] });
  const call = () => modernCall(t.url, token, "tools/call", { name: "echo_word", arguments: { word: "x" } });
  await warm(token);
  assert.equal((await call()).status, 200);
  const id = (await t.app.store.listTokens(user.id))[0]!.id;
  assert.equal((await request(`${t.url}/api/tokens/${id}`, token, { method: "DELETE" })).status, 200);
  assert.equal((await call()).status, 401);
  assert.equal((await request(`${t.url}/api/me`, token)).status, 401);
});

it("a token that expires while its principal is cached is refused on the first request after its expiry", async () => {
  const user = await t.user("eve", { grants: ["knot.mcp", "plugin.demo.view_dashboard"] });
  const token = await t.token(user, null, { expiresAt: new Date(Date.now() + 1_500).toISOString() });
  await warm(token);
  assert.equal((await modernCall(t.url, token, "tools/call", { name: "echo_word", arguments: { word: "x" } })).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1_700));
  assert.equal((await request(`${t.url}/api/me`, token)).status, 401);
  assert.equal((await modernCall(t.url, token, "tools/call", { name: "echo_word", arguments: { word: "x" } })).status, 401);
});
