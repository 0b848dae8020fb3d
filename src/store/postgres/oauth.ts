/**
 * oidc-provider's models (authorization codes, access and refresh tokens, grants, registered
 * clients, interactions) as JSON rows. Expired rows are invisible to readers and pruned on write.
 */
import type { Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import type { PgRow } from "./pg-driver.ts";

type OAuthMethods = Pick<Store, "saveOAuthModel" | "findOAuthModel" | "findOAuthModelByUid" | "consumeOAuthModel" | "destroyOAuthModel" | "revokeOAuthGrant">;

const PRUNE_EVERY = 100;

export function createOAuthMethods({ db, now }: StoreContext): OAuthMethods {
  let writes = 0;
  const read = (row: PgRow | undefined): Record<string, unknown> | null => {
    if (!row) return null;
    const payload = row.payload as Record<string, unknown>;
    return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(Date.parse(String(row.consumed_at)) / 1000) };
  };
  return {
    async saveOAuthModel({ model, id, payload, grantId, uid, expiresAt }) {
      if (++writes % PRUNE_EVERY === 0) await db.query("DELETE FROM oauth_models WHERE expires_at IS NOT NULL AND expires_at <= $1", [now()]);
      await db.query(
        `INSERT INTO oauth_models (model, id, payload, grant_id, uid, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, expires_at = excluded.expires_at`,
        [model, id, JSON.stringify(payload), grantId, uid, expiresAt],
      );
    },
    async findOAuthModel(model, id) {
      const { rows } = await db.query("SELECT payload, consumed_at FROM oauth_models WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > $3)", [model, id, now()]);
      return read(rows[0]);
    },
    async findOAuthModelByUid(model, uid) {
      const { rows } = await db.query("SELECT payload, consumed_at FROM oauth_models WHERE model = $1 AND uid = $2 AND (expires_at IS NULL OR expires_at > $3)", [model, uid, now()]);
      return read(rows[0]);
    },
    async consumeOAuthModel(model, id) {
      await db.query("UPDATE oauth_models SET consumed_at = $1 WHERE model = $2 AND id = $3 AND consumed_at IS NULL", [now(), model, id]);
    },
    async destroyOAuthModel(model, id) {
      await db.query("DELETE FROM oauth_models WHERE model = $1 AND id = $2", [model, id]);
    },
    async revokeOAuthGrant(grantId, model) {
      if (model === undefined) await db.query("DELETE FROM oauth_models WHERE grant_id = $1 OR (model = 'Grant' AND id = $1)", [grantId]);
      else await db.query("DELETE FROM oauth_models WHERE grant_id = $1 AND model = $2", [grantId, model]);
    },
  };
}
