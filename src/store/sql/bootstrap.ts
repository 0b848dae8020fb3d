/**
 * The first start's admin and its token, together or not at all: a start that fails between the
 * two must not leave an admin no one holds a token for (every later start would see a user and
 * skip the bootstrap). Instances starting at once on one empty database may all see no users;
 * the name's uniqueness picks one, and the others' bootstrap is simply not needed.
 */
import type { Store } from "../store.ts";
import type { StoreContext } from "./context.ts";

export function createBootstrapMethods({ client, now }: StoreContext): Pick<Store, "bootstrapAdmin"> {
  return {
    async bootstrapAdmin({ name, tokenName, secretHash }) {
      try {
        return await client.transaction(async (tx) => {
          const [row] = (await tx.query("SELECT count(*) AS n FROM users")).rows;
          if (Number(row?.n ?? 0) > 0) return false;
          const userId = crypto.randomUUID();
          const at = now();
          await tx.query("INSERT INTO users (id, name, is_admin, created_at) VALUES (?, ?, ?, ?)", [userId, name, true, at]);
          await tx.query("INSERT INTO tokens (id, user_id, name, secret_hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, NULL, ?, NULL)", [crypto.randomUUID(), userId, tokenName, secretHash, at]);
          return true;
        });
      } catch (error) {
        // Another instance committed its admin first (on PostgreSQL this insert waited for it, then collided).
        if (client.dialect.isUniqueViolation(error)) return false;
        throw error;
      }
    },
  };
}
