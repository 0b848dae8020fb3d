/**
 * Attack: with an assistant's narrowed token (scoped to one plugin's permissions), learn about the
 * user's other credentials and revoke them all — the unscoped main token, its web sessions, the
 * OAuth connections — leaving the user unable to mint a new token (that needs an unscoped one).
 * Guarantee: a scoped credential sees and revokes only itself, as it learns only about itself
 * elsewhere (/api/me/visibility); the owner's unscoped credential manages all of them.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

it("a scoped token lists and revokes only itself; the unscoped token still manages every token", async () => {
  const { user, token: main } = await t.userWithToken("alice", { grants: ["plugin.metrics.view"] });
  const scoped = await t.token(user, { permissions: ["plugin.metrics.*"], write: true });
  const tokens = await t.app.store.listTokens(user.id);
  const mainId = tokens[0]!.id;
  const scopedId = tokens[1]!.id;

  const listed = await request(`${t.url}/api/tokens`, scoped);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.deepEqual(listed.body.tokens.map((row: { id: string }) => row.id), [scopedId], "a scoped token saw the user's other credentials");

  const revokeMain = await request(`${t.url}/api/tokens/${mainId}`, scoped, { method: "DELETE" });
  assert.equal(revokeMain.status, 403, JSON.stringify(revokeMain.body));
  assert.equal(revokeMain.body.code, "PERMISSION_DENIED");
  assert.equal((await t.app.store.getToken(mainId))!.revokedAt, null, "the scoped token revoked the main token");
  assert.equal((await request(`${t.url}/api/me`, main)).status, 200);

  // The unscoped token sees both; the scoped one may revoke itself (an assistant signing off).
  const all = await request(`${t.url}/api/tokens`, main);
  assert.deepEqual(all.body.tokens.map((row: { id: string }) => row.id).sort(), [mainId, scopedId].sort());
  const revokeSelf = await request(`${t.url}/api/tokens/${scopedId}`, scoped, { method: "DELETE" });
  assert.equal(revokeSelf.status, 200, JSON.stringify(revokeSelf.body));
  assert.equal((await request(`${t.url}/api/me`, scoped)).status, 401);
});
