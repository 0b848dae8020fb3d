/**
 * oidc-provider's persistence on our Store, so codes, tokens, grants and registered clients live
 * in the same database as everything else (several instances on one PostgreSQL share them).
 * oidc-provider decides what the payloads mean; this only stores, finds, consumes and deletes, and
 * turns a consumption that lost a race into the replay it is.
 */
import Provider, { errors, type Adapter, type AdapterPayload } from "oidc-provider";
import type { Store } from "../store/store.ts";

export function createStoreAdapter(store: Store, model: string): Adapter {
  const found = (payload: Record<string, unknown> | null) => (payload ?? undefined) as AdapterPayload | undefined;
  return {
    async upsert(id, payload, expiresIn) {
      const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000).toISOString() : null;
      await store.saveOAuthModel({ model, id, payload: { ...payload }, grantId: payload.grantId ?? null, uid: payload.uid ?? null, expiresAt });
    },
    async find(id) {
      return found(await store.findOAuthModel(model, id));
    },
    async findByUid(uid) {
      return found(await store.findOAuthModelByUid(model, uid));
    },
    // The device flow is not enabled: no user codes exist.
    async findByUserCode() {
      return undefined;
    },
    async consume(id) {
      if (await store.consumeOAuthModel(model, id)) return;
      // oidc-provider saw it unconsumed, but another request consumed it since: a replay, handled
      // as oidc-provider handles one it sees (revoke the grant, tell listeners, invalid_grant).
      const grantId = (await store.findOAuthModel(model, id))?.grantId;
      if (typeof grantId === "string") {
        await store.revokeOAuthGrant(grantId);
        const ctx = Provider.ctx;
        ctx?.oidc.provider.emit("grant.revoked", ctx, grantId);
      }
      throw new errors.InvalidGrant(`${model} already consumed`);
    },
    async destroy(id) {
      await store.destroyOAuthModel(model, id);
    },
    async revokeByGrantId(grantId) {
      await store.revokeOAuthGrant(grantId, model);
    },
  };
}
