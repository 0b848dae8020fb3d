import assert from "node:assert/strict";
import { test } from "node:test";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { forEachStore } from "./helpers.ts";

forEachStore((backend) => {
  test("tokens: created with a hash only, found by hash, listed, fetched", async () => {
    const { store, sql } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const bob = await store.createUser({ name: "bob", isAdmin: false });
    const secret = mintSecret();
    const scoped = await store.createToken({
      userId: ada.id,
      name: "assistant",
      secretHash: hashSecret(secret),
      scopes: { permissions: ["plugin.metrics.*"], write: false },
      expiresAt: "2027-01-01T00:00:00.000Z",
    });
    const plain = await store.createToken({ userId: bob.id, name: "cli", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: null });

    assert.deepEqual(scoped.scopes, { permissions: ["plugin.metrics.*"], write: false });
    assert.ok(Object.isFrozen(scoped.scopes));
    assert.equal(scoped.expiresAt, "2027-01-01T00:00:00.000Z");
    assert.equal(scoped.revokedAt, null);
    assert.equal(scoped.lastUsedAt, null);
    assert.equal(plain.scopes, null);
    assert.equal("secretHash" in scoped, false);

    assert.deepEqual(await store.findTokenByHash(hashSecret(secret)), scoped);
    assert.equal(await store.findTokenByHash(hashSecret("kt_wrong")), null);
    assert.deepEqual(await store.getToken(plain.id), plain);
    assert.equal(await store.getToken("nope"), null);
    assert.deepEqual((await store.listTokens()).map((token) => token.id), [scoped.id, plain.id]);
    assert.deepEqual((await store.listTokens(bob.id)).map((token) => token.id), [plain.id]);

    // The secret itself is nowhere in the database.
    const dump = JSON.stringify(await sql("SELECT * FROM tokens"));
    assert.equal(dump.includes(secret), false);
    assert.equal(dump.includes(hashSecret(secret)), true);
  });

  test("tokens: a reused hash is a CONFLICT, an unknown user NOT_FOUND", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const secretHash = hashSecret(mintSecret());
    await store.createToken({ userId: ada.id, name: "a", secretHash, scopes: null, expiresAt: null });
    await assert.rejects(
      store.createToken({ userId: ada.id, name: "b", secretHash, scopes: null, expiresAt: null }),
      (error: { code?: string; message: string }) => error.code === "CONFLICT" && !error.message.includes(secretHash),
    );
    await assert.rejects(
      store.createToken({ userId: "nobody", name: "c", secretHash: hashSecret("x"), scopes: null, expiresAt: null }),
      (error: { code?: string }) => error.code === "NOT_FOUND",
    );
    assert.equal((await store.listTokens()).length, 1);
  });

  test("tokens: revoke once, still found by hash; touch sets lastUsedAt; expired still found", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const secretHash = hashSecret(mintSecret());
    const token = await store.createToken({ userId: ada.id, name: "a", secretHash, scopes: null, expiresAt: "2000-01-01T00:00:00.000Z" });

    await store.touchToken(token.id, "2026-02-02T02:02:02.000Z");
    assert.equal((await store.getToken(token.id))?.lastUsedAt, "2026-02-02T02:02:02.000Z");
    await store.touchToken("nope", "2026-02-02T02:02:02.000Z"); // unknown id: nothing to do

    assert.equal(await store.revokeToken(token.id), true);
    const revoked = await store.findTokenByHash(secretHash);
    assert.ok(revoked?.revokedAt);
    assert.equal(revoked.expiresAt, "2000-01-01T00:00:00.000Z");
    assert.equal(await store.revokeToken(token.id), false);
    assert.equal((await store.getToken(token.id))?.revokedAt, revoked.revokedAt); // the first revocation time is kept
    assert.equal(await store.revokeToken("nope"), false);
  });
  test("tokens: a derived token (a web session) is made only while its parent is active; revoking the parent revokes it", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const parent = await store.createToken({ userId: ada.id, name: "p", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: null });
    const child = await store.createToken({ userId: ada.id, name: "web session", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: null, parentId: parent.id });
    assert.equal(child.parentId, parent.id);
    assert.equal(await store.revokeToken(parent.id), true);
    assert.notEqual((await store.getToken(child.id))?.revokedAt, null, "the derived token survived its parent's revocation");
    await assert.rejects(
      store.createToken({ userId: ada.id, name: "web session", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: null, parentId: parent.id }),
      (error: Error & { code?: string }) => error.code === "UNAUTHENTICATED",
    );
    const expired = await store.createToken({ userId: ada.id, name: "e", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: "2000-01-01T00:00:00.000Z" });
    await assert.rejects(
      store.createToken({ userId: ada.id, name: "web session", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: null, parentId: expired.id }),
      (error: Error & { code?: string }) => error.code === "UNAUTHENTICATED",
    );
    await assert.rejects(
      store.createToken({ userId: ada.id, name: "web session", secretHash: hashSecret(mintSecret()), scopes: null, expiresAt: null, parentId: "nope" }),
      (error: Error & { code?: string }) => error.code === "UNAUTHENTICATED",
    );
    assert.equal((await store.listTokens(ada.id)).filter((token) => token.revokedAt === null).length, 1, "only the expired (unrevoked) parent is left unrevoked");
  });
});
