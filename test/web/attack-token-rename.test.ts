/**
 * Attack: rename a token you should not touch — another user's, a sign-in session's, or with a
 * narrowed credential (an assistant's scoped or read-only token) — through PATCH /api/tokens/:id.
 * Guarantee: only the owner (or an admin) with an unscoped token renames, never a session token,
 * never to the reserved session name; every refusal leaves the stored name as it was.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const rename = (id: string, token: string, name: string) =>
  request(`${t.url}/api/tokens/${id}`, token, { method: "PATCH", body: JSON.stringify({ name }) });
const nameOf = async (id: string) => (await t.app.store.getToken(id))!.name;

it("another user's token is not found; a scoped or read-only credential may not rename its own tokens", async () => {
  const alice = await t.userWithToken("alice");
  const bob = await t.userWithToken("bob");
  const bobTokenId = (await t.app.store.listTokens(bob.user.id))[0]!.id;
  const aliceTokenId = (await t.app.store.listTokens(alice.user.id))[0]!.id;
  const otherUsers = await rename(bobTokenId, alice.token, "mine now");
  assert.equal(otherUsers.status, 404);
  assert.equal(await nameOf(bobTokenId), "test");
  const scoped = await t.token(alice.user, { permissions: ["knot.mcp"], write: true });
  const readOnly = await t.token(alice.user, { permissions: ["*"], write: false });
  for (const credential of [scoped, readOnly]) {
    const refused = await rename(aliceTokenId, credential, "renamed by an assistant");
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "PERMISSION_DENIED");
  }
  assert.equal(await nameOf(aliceTokenId), "test");
  assert.equal((await rename(aliceTokenId, alice.token, "laptop")).status, 200, "the owner's unscoped token may");
  assert.equal(await nameOf(aliceTokenId), "laptop");
});

it("a sign-in session's token is never renamed, and no token is renamed to the session name", async () => {
  const carol = await t.userWithToken("carol");
  const session = await t.app.store.createToken({ userId: carol.user.id, name: "web session", secretHash: hashSecret(mintSecret("kt_")), scopes: null, expiresAt: null });
  const refused = await rename(session.id, carol.token, "not a session");
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, "INVALID_ARGUMENT");
  assert.equal(await nameOf(session.id), "web session");
  const carolTokenId = (await t.app.store.listTokens(carol.user.id)).find((token) => token.name === "test")!.id;
  const reserved = await rename(carolTokenId, carol.token, "web session");
  assert.equal(reserved.status, 400);
  assert.equal(await nameOf(carolTokenId), "test");
});
