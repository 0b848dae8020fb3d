/**
 * The first start's `admin` and its token (src/admin/tokens.ts `bootstrap`), on both backends: two
 * instances starting at once on one empty database make one admin and one token between them (the
 * other start is simply not the first), and a start that fails between the user and its token
 * leaves nothing behind, so the next start bootstraps again.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTokenAdmin } from "../../src/admin/tokens.ts";
import { hashSecret } from "../../src/auth/secrets.ts";
import type { Store } from "../../src/store/store.ts";
import { forEachStore } from "./helpers.ts";

const tokensOf = (store: Store) => createTokenAdmin({ store, events: { emit: async () => {}, emitCommitted: async () => {}, onStored: () => {} }, toolsChanged: () => {}, tokenRevoked: async () => {}, audit: { record: async () => {} } });

forEachStore((backend) => {
  test("two instances bootstrapping one empty database at once: one admin, one token, no error", async () => {
    for (let round = 0; round < 5; round += 1) {
      const { store, another } = await backend.open();
      const other = await another();
      const outcomes = await Promise.allSettled([tokensOf(store).bootstrap(), tokensOf(other).bootstrap()]);
      assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "fulfilled"], `round ${round}: ${outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : "ok"))}`);
      const secrets = outcomes.map((o) => (o.status === "fulfilled" ? o.value : undefined)).filter((s) => s !== null);
      assert.equal(secrets.length, 1, `round ${round}: one start printed a token`);
      const users = await store.listUsers();
      assert.deepEqual(users.map((u) => [u.name, u.isAdmin]), [["admin", true]]);
      const token = await store.findTokenByHash(hashSecret(secrets[0]!));
      assert.equal(token?.userId, users[0]!.id);
      assert.equal((await store.listTokens()).length, 1);
      assert.equal(await tokensOf(other).bootstrap(), null, "a later start is not the first");
    }
  });

  test("a first start that fails before the admin's token exists leaves no admin: the next start bootstraps", async () => {
    const { store, sql } = await backend.open();
    const [create, drop] = backend.name === "sqlite"
      ? ["CREATE TRIGGER no_tokens BEFORE INSERT ON tokens BEGIN SELECT RAISE(ABORT, 'no tokens now'); END", "DROP TRIGGER no_tokens"]
      : ["CREATE FUNCTION no_tokens() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no tokens now'; END $$; CREATE TRIGGER no_tokens BEFORE INSERT ON tokens FOR EACH ROW EXECUTE FUNCTION no_tokens()", "DROP TRIGGER no_tokens ON tokens"];
    await sql(create);
    await assert.rejects(tokensOf(store).bootstrap(), /no tokens now/);
    assert.deepEqual(await store.listUsers(), [], "the user went with the token that failed");
    await sql(drop);
    const secret = await tokensOf(store).bootstrap();
    assert.equal(typeof secret, "string");
    assert.equal((await store.findTokenByHash(hashSecret(secret!)))?.name, "bootstrap");
  });
});
