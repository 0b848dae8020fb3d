/**
 * API tokens. Only the hash of a secret is stored (see src/auth/secrets.ts); a stolen database
 * yields no usable credential. Expired and revoked tokens are still found by their hash: the auth
 * layer decides what they mean, and can say why a credential was refused.
 */
import { KnotError } from "../../errors.ts";
import type { Store, TokenRecord } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { toToken } from "./records.ts";
import type { SqlQueryable } from "./sql-client.ts";

type TokenMethods = Pick<Store, "createToken" | "findTokenByGrant" | "renameToken" | "findTokenByHash" | "listTokens" | "getToken" | "revokeToken" | "touchToken">;

const COLUMNS = "id, user_id, name, scopes, created_at, expires_at, revoked_at, last_used_at, parent_id, client_id, client_name, grant_id";

export function createTokenMethods({ client, now }: StoreContext): TokenMethods {
  const { dialect } = client;
  const byUser = `SELECT ${COLUMNS} FROM tokens WHERE user_id = ? ORDER BY created_at, ${dialect.insertionOrder}`;
  const all = `SELECT ${COLUMNS} FROM tokens ORDER BY created_at, ${dialect.insertionOrder}`;

  async function findOne(column: "id" | "grant_id" | "secret_hash", value: string): Promise<TokenRecord | null> {
    const [row] = (await client.query(`SELECT ${COLUMNS} FROM tokens WHERE ${column} = ?`, [value])).rows;
    return row ? toToken(row) : null;
  }

  /**
   * A derived token (a web session) is made only while the token it derives from is active, in one
   * transaction that holds the parent's row (SQLite: the write lock). A revocation takes the same
   * row first (revokeToken), so either it sees the new child and revokes it too, or the child is
   * refused: no derived token outlives a revocation that raced its creation.
   */
  async function assertParentActive(tx: SqlQueryable, parentId: string): Promise<void> {
    const [parent] = (await tx.query(`SELECT revoked_at, expires_at FROM tokens WHERE id = ?${dialect.lockRows("FOR SHARE")}`, [parentId])).rows;
    const expiresAt = parent?.expires_at;
    if (!parent || parent.revoked_at !== null || (typeof expiresAt === "string" && expiresAt <= now())) {
      throw new KnotError("UNAUTHENTICATED", "the token this one would derive from is no longer valid (revoked or expired)");
    }
  }

  return {
    async createToken({ userId, name, secretHash, scopes, expiresAt, parentId = null, connection = null }) {
      const insert = (target: SqlQueryable) =>
        target.query(
          `INSERT INTO tokens (id, user_id, name, secret_hash, scopes, created_at, expires_at, parent_id, client_id, client_name, grant_id)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
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
      try {
        const { rows } = parentId === null ? await insert(client) : await client.transaction(async (tx) => {
          await assertParentActive(tx, parentId);
          return insert(tx);
        });
        return toToken(rows[0]!);
      } catch (error) {
        if (dialect.isForeignKeyViolation(error)) throw new KnotError("NOT_FOUND", `No user with id ${userId}.`);
        // Only a reused secret can collide; never echo the hash.
        if (dialect.isUniqueViolation(error)) throw new KnotError("CONFLICT", "A token with this secret already exists; mint a new secret.");
        throw error;
      }
    },

    findTokenByGrant: (grantId) => findOne("grant_id", grantId),
    findTokenByHash: (secretHash) => findOne("secret_hash", secretHash),
    getToken: (id) => findOne("id", id),

    async renameToken(id, name) {
      if ((await client.query("UPDATE tokens SET name = ? WHERE id = ?", [name, id])).rowCount === 0) {
        throw new KnotError("NOT_FOUND", `No token with id ${id}.`);
      }
    },

    async listTokens(userId) {
      const { rows } = userId === undefined ? await client.query(all) : await client.query(byUser, [userId]);
      return rows.map(toToken);
    },

    async revokeToken(id) {
      return client.transaction(async (tx) => {
        // The token's row first: a derived token being created meanwhile (createToken) either
        // committed before this (the UPDATE below sees it) or waits and then finds it revoked.
        await tx.query(`SELECT id FROM tokens WHERE id = ?${dialect.lockRows("FOR UPDATE")}`, [id]);
        // One statement revokes the token and the tokens derived from it together.
        const { rows } = await tx.query("UPDATE tokens SET revoked_at = ? WHERE (id = ? OR parent_id = ?) AND revoked_at IS NULL RETURNING id", [now(), id, id]);
        return rows.some((row) => row.id === id);
      });
    },

    async touchToken(id, at) {
      await client.informationalWrite("UPDATE tokens SET last_used_at = ? WHERE id = ?", [at, id]);
    },
  };
}
