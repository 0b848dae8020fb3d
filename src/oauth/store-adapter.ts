/**
 * oidc-provider's persistence on our Store, so codes, tokens, grants and registered clients live
 * in the same database as everything else (several instances on one PostgreSQL share them).
 * oidc-provider decides what the payloads mean; this only stores, finds, consumes and deletes.
 */
import type { Adapter, AdapterPayload } from "oidc-provider";
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
      await store.consumeOAuthModel(model, id);
    },
    async destroy(id) {
      await store.destroyOAuthModel(model, id);
    },
    async revokeByGrantId(grantId) {
      await store.revokeOAuthGrant(grantId, model);
    },
  };
}
