/**
 * Opens the configured store: PostgreSQL when `path` is a `postgres://` or `postgresql://` URL
 * (several instances may share it), otherwise the embedded SQLite file at `path`.
 */
import { isPostgresUrl } from "./postgres/url.ts";
import { createSqliteStore } from "./sqlite/sqlite-store.ts";
import type { Store } from "./store.ts";

export type { Store } from "./store.ts";

export interface StoreOptions {
  /**
   * A SQLite file path (its folder is created if missing), ":memory:", or a PostgreSQL URL
   * (`postgres://user:password@host:port/database`).
   */
  readonly path: string;
  /** SQLite commit durability: "full" (default here, fsync per commit) or "normal" (audit rows without an fsync; see sqlite-driver.ts). */
  readonly durability?: "full" | "normal";
  /** SQLite: the request being served, if any (see sqlite-driver.ts: data_version read once per request and turn). */
  readonly markScope?: () => object | undefined;
}

/**
 * @example
 *   const store = await openStore({ path: "data/knot.db" });
 *   try { console.log(await store.countUsers()); } finally { await store.close(); }
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (isPostgresUrl(options.path)) {
    // Loaded only when asked for, so the embedded default never loads the PostgreSQL client.
    const { createPostgresStore } = await import("./postgres/postgres-store.ts");
    return createPostgresStore({ url: options.path });
  }
  return createSqliteStore({ path: options.path, ...(options.durability ? { durability: options.durability } : {}), ...(options.markScope ? { markScope: options.markScope } : {}) });
}
