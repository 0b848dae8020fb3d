/**
 * API tokens. Only the hash of a secret is stored (see src/auth/secrets.ts); a stolen database
 * yields no usable credential. Expired and revoked tokens are still found by their hash: the auth
 * layer decides what they mean, and can say why a credential was refused.
 */
import { KnotError } from "../../errors.ts";
import type { Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { toToken } from "./rows.ts";
import { isForeignKeyViolation, isUniqueViolation } from "./sqlite-driver.ts";

type TokenMethods = Pick<Store, "createToken" | "findTokenByGrant" | "renameToken" | "findTokenByHash" | "listTokens" | "getToken" | "revokeToken" | "touchToken">;

const COLUMNS = "id, user_id, name, scopes, created_at, expires_at, revoked_at, last_used_at, parent_id, client_id, client_name, grant_id";

export function createTokenMethods({ db, now }: StoreContext): TokenMethods {
  function getToken(id: string) {
    const row = db.get(`SELECT ${COLUMNS} FROM tokens WHERE id = ?`, id);
    return row ? toToken(row) : null;
  }

  return {
    async createToken({ userId, name, secretHash, scopes, expiresAt, parentId = null, connection = null }) {
      const id = crypto.randomUUID();
      try {
        db.run(
          "INSERT INTO tokens (id, user_id, name, secret_hash, scopes, created_at, expires_at, parent_id, client_id, client_name, grant_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          id,
          userId,
          name,
          secretHash,
          scopes === null ? null : JSON.stringify({ permissions: scopes.permissions, write: scopes.write }),
          now(),
          expiresAt,
          parentId,
          connection?.clientId ?? null,
          connection?.clientName ?? null,
          connection?.grantId ?? null,
        );
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new KnotError("NOT_FOUND", `No user with id ${userId}.`);
        // Only a reused secret can collide; never echo the hash.
        if (isUniqueViolation(error)) throw new KnotError("CONFLICT", "A token with this secret already exists; mint a new secret.");
        throw error;
      }
      return getToken(id)!;
    },

    async findTokenByGrant(grantId) {
      const row = db.get(`SELECT ${COLUMNS} FROM tokens WHERE grant_id = ?`, grantId);
      return row ? toToken(row) : null;
    },

    async renameToken(id, name) {
      if (db.run("UPDATE tokens SET name = ? WHERE id = ?", name, id).changes === 0) throw new KnotError("NOT_FOUND", `No token with id ${id}.`);
    },

    async findTokenByHash(secretHash) {
      const row = db.get(`SELECT ${COLUMNS} FROM tokens WHERE secret_hash = ?`, secretHash);
      return row ? toToken(row) : null;
    },

    async listTokens(userId) {
      const rows =
        userId === undefined
          ? db.all(`SELECT ${COLUMNS} FROM tokens ORDER BY created_at, rowid`)
          : db.all(`SELECT ${COLUMNS} FROM tokens WHERE user_id = ? ORDER BY created_at, rowid`, userId);
      return rows.map(toToken);
    },

    async getToken(id) {
      return getToken(id);
    },

    async revokeToken(id) {
      return db.transaction(() => {
        const at = now();
        db.run("UPDATE tokens SET revoked_at = ? WHERE parent_id = ? AND revoked_at IS NULL", at, id);
        return db.run("UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", at, id).changes > 0;
      });
    },

    async touchToken(id, at) {
      db.run("UPDATE tokens SET last_used_at = ? WHERE id = ?", at, id);
    },
  };
}
