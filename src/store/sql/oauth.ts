/**
 * oidc-provider's models (authorization codes, access and refresh tokens, grants, registered
 * clients, interactions) as JSON rows. Expired rows are invisible to readers and pruned on write.
 */
import type { Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { json } from "./records.ts";
import type { SqlRow } from "./sql-client.ts";

type OAuthMethods = Pick<Store, "saveOAuthModel" | "findOAuthModel" | "findOAuthModelByUid" | "consumeOAuthModel" | "destroyOAuthModel" | "revokeOAuthGrant">;

const PRUNE_EVERY = 100;

function read(row: SqlRow | undefined): Record<string, unknown> | null {
  if (!row) return null;
  const payload = json(row, "payload") as Record<string, unknown>;
  return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(Date.parse(String(row.consumed_at)) / 1000) };
}

export function createOAuthMethods({ client, now }: StoreContext): OAuthMethods {
  let writes = 0;
  const find = async (key: "id" | "uid", model: string, value: string) =>
    read((await client.query(`SELECT payload, consumed_at FROM oauth_models WHERE model = ? AND ${key} = ? AND (expires_at IS NULL OR expires_at > ?)`, [model, value, now()])).rows[0]);

  return {
    async saveOAuthModel({ model, id, payload, grantId, uid, expiresAt }) {
      if (++writes % PRUNE_EVERY === 0) await client.query("DELETE FROM oauth_models WHERE expires_at IS NOT NULL AND expires_at <= ?", [now()]);
      await client.query(
        `INSERT INTO oauth_models (model, id, payload, grant_id, uid, expires_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid, expires_at = excluded.expires_at`,
        [model, id, JSON.stringify(payload), grantId, uid, expiresAt],
      );
    },
    findOAuthModel: (model, id) => find("id", model, id),
    findOAuthModelByUid: (model, uid) => find("uid", model, uid),
    async consumeOAuthModel(model, id) {
      // One statement: concurrent callers (any instance) are serialised on the row, and only the first changes it.
      const { rowCount } = await client.query("UPDATE oauth_models SET consumed_at = ? WHERE model = ? AND id = ? AND consumed_at IS NULL", [now(), model, id]);
      return rowCount > 0;
    },
    async destroyOAuthModel(model, id) {
      await client.query("DELETE FROM oauth_models WHERE model = ? AND id = ?", [model, id]);
    },
    async revokeOAuthGrant(grantId, model) {
      if (model === undefined) await client.query("DELETE FROM oauth_models WHERE grant_id = ? OR (model = 'Grant' AND id = ?)", [grantId, grantId]);
      else await client.query("DELETE FROM oauth_models WHERE grant_id = ? AND model = ?", [grantId, model]);
    },
  };
}
