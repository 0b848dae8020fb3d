/**
 * The oidc-provider adapter's consumption: oidc-provider checks `consumed` and then calls
 * `consume`, so two requests with the same code or refresh token can both pass the check. The
 * store says which consumption changed the row; the other one is a replay.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, test } from "node:test";
import { errors } from "oidc-provider";
import { createStoreAdapter } from "../../src/oauth/store-adapter.ts";
import { openStore } from "../../src/store/index.ts";
import { tempDir } from "../helpers/fixtures.ts";

test("two concurrent consumptions: one wins, the other is invalid_grant and revokes the grant's models", async () => {
  const store = await openStore({ path: path.join(tempDir(), "knot.db") });
  after(() => store.close());
  const later = 3600;
  const refresh = createStoreAdapter(store, "RefreshToken");
  await createStoreAdapter(store, "Grant").upsert("g1", { jti: "g1", kind: "Grant" }, later);
  await createStoreAdapter(store, "AccessToken").upsert("a1", { jti: "a1", kind: "AccessToken", grantId: "g1" }, later);
  await refresh.upsert("r1", { jti: "r1", kind: "RefreshToken", grantId: "g1" }, later);

  const outcomes = await Promise.allSettled([refresh.consume("r1"), refresh.consume("r1")]);
  assert.deepEqual(outcomes.map((o) => o.status).sort(), ["fulfilled", "rejected"]);
  const lost = outcomes.find((o) => o.status === "rejected")!;
  assert.ok(lost.reason instanceof errors.InvalidGrant, String(lost.reason));
  assert.equal(await store.findOAuthModel("Grant", "g1"), null, "the replay revoked the grant");
  assert.equal(await store.findOAuthModel("AccessToken", "a1"), null, "and what it issued");
  await assert.rejects(refresh.consume("r1"), errors.InvalidGrant, "a later consumption of a revoked token is refused too");
});
