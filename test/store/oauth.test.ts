/** OAuth state in the store (both backends): connections bound to a grant, and oidc-provider's models. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { forEachStore } from "./helpers.ts";

forEachStore((backend) => {
  test("connections: a token bound to a client and grant, found by grant, renamed", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const binding = { clientId: "client-1", clientName: "Assistant", grantId: "grant-1" };
    const connection = await store.createToken({ userId: ada.id, name: "Assistant", secretHash: hashSecret(mintSecret()), scopes: { permissions: ["knot.mcp"], write: false }, expiresAt: null, connection: binding });
    assert.deepEqual(connection.connection, binding);
    assert.deepEqual(await store.findTokenByGrant("grant-1"), connection);
    assert.equal(await store.findTokenByGrant("grant-2"), null);
    const plain = await store.createToken({ userId: ada.id, name: "cli", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: null });
    assert.equal(plain.connection, null);
    await store.renameToken(connection.id, "Renamed");
    assert.equal((await store.getToken(connection.id))?.name, "Renamed");
    await assert.rejects(store.renameToken("no-such-token", "x"), { code: "NOT_FOUND" });
    await assert.rejects(store.createToken({ userId: ada.id, name: "dup", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: null, connection: binding }), "one connection per grant");
  });

  test("oauth models: saved, found by id and uid, consumed, expired, destroyed, revoked by grant", async () => {
    const { store } = await backend.open();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await store.saveOAuthModel({ model: "AuthorizationCode", id: "c1", payload: { jti: "c1", grantId: "g1" }, grantId: "g1", uid: null, expiresAt: later });
    await store.saveOAuthModel({ model: "AccessToken", id: "a1", payload: { jti: "a1", grantId: "g1" }, grantId: "g1", uid: null, expiresAt: later });
    await store.saveOAuthModel({ model: "Grant", id: "g1", payload: { jti: "g1" }, grantId: null, uid: null, expiresAt: later });
    await store.saveOAuthModel({ model: "Interaction", id: "i1", payload: { jti: "i1", uid: "u1" }, grantId: null, uid: "u1", expiresAt: later });
    await store.saveOAuthModel({ model: "Session", id: "old", payload: { jti: "old" }, grantId: null, uid: null, expiresAt: "2000-01-01T00:00:00.000Z" });
    assert.deepEqual(await store.findOAuthModel("AuthorizationCode", "c1"), { jti: "c1", grantId: "g1" });
    assert.deepEqual(await store.findOAuthModelByUid("Interaction", "u1"), { jti: "i1", uid: "u1" });
    assert.equal(await store.findOAuthModel("Session", "old"), null, "expired rows are invisible");
    assert.equal(await store.consumeOAuthModel("AuthorizationCode", "c1"), true);
    assert.equal(await store.consumeOAuthModel("AuthorizationCode", "c1"), false, "a second consumption changes nothing, and says so");
    assert.equal(await store.consumeOAuthModel("AuthorizationCode", "missing"), false);
    const consumed = await store.findOAuthModel("AuthorizationCode", "c1");
    assert.equal(typeof consumed?.consumed, "number");
    // Replacing keeps one row.
    await store.saveOAuthModel({ model: "Interaction", id: "i1", payload: { jti: "i1", uid: "u1", result: 1 }, grantId: null, uid: "u1", expiresAt: later });
    assert.deepEqual(await store.findOAuthModel("Interaction", "i1"), { jti: "i1", uid: "u1", result: 1 });
    await store.revokeOAuthGrant("g1", "AccessToken");
    assert.equal(await store.findOAuthModel("AccessToken", "a1"), null);
    assert.notEqual(await store.findOAuthModel("AuthorizationCode", "c1"), null, "one model only");
    await store.revokeOAuthGrant("g1");
    assert.equal(await store.findOAuthModel("AuthorizationCode", "c1"), null);
    assert.equal(await store.findOAuthModel("Grant", "g1"), null, "the grant itself too");
    await store.destroyOAuthModel("Interaction", "i1");
    assert.equal(await store.findOAuthModel("Interaction", "i1"), null);
  });

  // oidc-provider checks `consumed`, then consumes: two requests with the same code or refresh
  // token both pass the check, so the store's answer is what tells the loser it lost.
  test("two instances consuming the same code at once: exactly one wins", async () => {
    const { store, another } = await backend.open();
    const other = await another();
    const later = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < 10; i += 1) {
      const id = `rt${i}`;
      await store.saveOAuthModel({ model: "RefreshToken", id, payload: { jti: id, grantId: "g1" }, grantId: "g1", uid: null, expiresAt: later });
      const wins = await Promise.all([store.consumeOAuthModel("RefreshToken", id), other.consumeOAuthModel("RefreshToken", id), store.consumeOAuthModel("RefreshToken", id)]);
      assert.deepEqual(wins.filter(Boolean), [true], `round ${i}: ${JSON.stringify(wins)}`);
    }
  });
});
