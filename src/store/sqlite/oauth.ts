/**
 * oidc-provider's models (authorization codes, access and refresh tokens, grants, registered
 * clients, interactions) as JSON rows. Expired rows are invisible to readers and pruned on write.
 */
import type { Store } from "../store.ts";
import type { StoreContext } from "./context.ts";

type OAuthMethods = Pick<Store, "saveOAuthModel" | "findOAuthModel" | "findOAuthModelByUid" | "consumeOAuthModel" | "destroyOAuthModel" | "revokeOAuthGrant">;

const PRUNE_EVERY = 100;

export function createOAuthMethods({ db, now }: StoreContext): OAuthMethods {
  let writes = 0;
  const read = (row: Record<string, unknown> | undefined): Record<string, unknown> | null => {
    if (!row) return null;
    const payload = JSON.parse(String(row.payload)) as Record<string, unknown>;
    return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(Date.parse(String(row.consumed_at)) / 1000) };
  };
  return {
    async saveOAuthModel({ model, id, payload, grantId, uid, expiresAt }) {
      if (++writes % PRUNE_EVERY === 0) db.run("DELETE FROM oauth_models WHERE expires_at IS NOT NULL AND expires_at <= ?", now());
      db.run(
        `INSERT INTO oauth_models (model, id, payload, grant_id, uid, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, expires_at = excluded.expires_at`,
        model, id, JSON.stringify(payload), grantId, uid, expiresAt,
      );
    },
    async findOAuthModel(model, id) {
      return read(db.get("SELECT payload, consumed_at FROM oauth_models WHERE model = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)", model, id, now()));
    },
    async findOAuthModelByUid(model, uid) {
      return read(db.get("SELECT payload, consumed_at FROM oauth_models WHERE model = ? AND uid = ? AND (expires_at IS NULL OR expires_at > ?)", model, uid, now()));
    },
    async consumeOAuthModel(model, id) {
      db.run("UPDATE oauth_models SET consumed_at = ? WHERE model = ? AND id = ? AND consumed_at IS NULL", now(), model, id);
    },
    async destroyOAuthModel(model, id) {
      db.run("DELETE FROM oauth_models WHERE model = ? AND id = ?", model, id);
    },
    async revokeOAuthGrant(grantId, model) {
      if (model === undefined) db.run("DELETE FROM oauth_models WHERE grant_id = ? OR (model = 'Grant' AND id = ?)", grantId, grantId);
      else db.run("DELETE FROM oauth_models WHERE grant_id = ? AND model = ?", grantId, model);
    },
  };
}
