/**
 * API tokens. Only the hash of a secret is stored (see src/auth/secrets.ts); a stolen database
 * yields no usable credential. Expired and revoked tokens are still found by their hash: the auth
 * layer decides what they mean, and can say why a credential was refused.
 */
import { KnotError } from "../../errors.ts";
import type { Store, TokenRecord } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { isForeignKeyViolation, isUniqueViolation } from "./pg-driver.ts";
import { toToken } from "./rows.ts";

type TokenMethods = Pick<Store, "createToken" | "findTokenByGrant" | "renameToken" | "findTokenByHash" | "listTokens" | "getToken" | "revokeToken" | "touchToken">;

const COLUMNS = "id, user_id, name, scopes, created_at, expires_at, revoked_at, last_used_at, parent_id, client_id, client_name, grant_id";

export function createTokenMethods({ db, now }: StoreContext): TokenMethods {
  async function findOne(where: string, value: string): Promise<TokenRecord | null> {
    const [row] = (await db.query(`SELECT ${COLUMNS} FROM tokens WHERE ${where} = $1`, [value])).rows;
    return row ? toToken(row) : null;
  }

  return {
    async createToken({ userId, name, secretHash, scopes, expiresAt, parentId = null, connection = null }) {
      try {
        const { rows } = await db.query(
          `INSERT INTO tokens (id, user_id, name, secret_hash, scopes, created_at, expires_at, parent_id, client_id, client_name, grant_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
          [
            crypto.randomUUID(),
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
          ],
        );
        return toToken(rows[0]!);
      } catch (error) {
        if (isForeignKeyViolation(error)) throw new KnotError("NOT_FOUND", `No user with id ${userId}.`);
        // Only a reused secret can collide; never echo the hash.
        if (isUniqueViolation(error)) throw new KnotError("CONFLICT", "A token with this secret already exists; mint a new secret.");
        throw error;
      }
    },

    async findTokenByGrant(grantId) {
      return findOne("grant_id", grantId);
    },

    async renameToken(id, name) {
      if ((await db.query("UPDATE tokens SET name = $1 WHERE id = $2", [name, id])).rowCount === 0) throw new KnotError("NOT_FOUND", `No token with id ${id}.`);
    },

    async findTokenByHash(secretHash) {
      return findOne("secret_hash", secretHash);
    },

    async listTokens(userId) {
      const { rows } =
        userId === undefined
          ? await db.query(`SELECT ${COLUMNS} FROM tokens ORDER BY created_at, ord`)
          : await db.query(`SELECT ${COLUMNS} FROM tokens WHERE user_id = $1 ORDER BY created_at, ord`, [userId]);
      return rows.map(toToken);
    },

    async getToken(id) {
      return findOne("id", id);
    },

    async revokeToken(id) {
      const at = now();
      await db.query("UPDATE tokens SET revoked_at = $1 WHERE parent_id = $2 AND revoked_at IS NULL", [at, id]);
      return (await db.query("UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [at, id])).rowCount > 0;
    },

    async touchToken(id, at) {
      await db.query("UPDATE tokens SET last_used_at = $1 WHERE id = $2", [at, id]);
    },
  };
}
