/**
 * Opens the configured store. SQLite only for now; a PostgreSQL store will be chosen here by the
 * shape of `path` (a `postgres://` URL) when it exists.
 */
import { createSqliteStore } from "./sqlite/sqlite-store.ts";
import type { Store } from "./store.ts";

export type { Store } from "./store.ts";

export interface StoreOptions {
  /** A SQLite file path (its folder is created if missing), or ":memory:". */
  readonly path: string;
}

/**
 * @example
 *   const store = await openStore({ path: "data/knot.db" });
 *   try { console.log(await store.countUsers()); } finally { await store.close(); }
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  return createSqliteStore({ path: options.path });
}
