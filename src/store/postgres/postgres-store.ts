/**
 * The Store on a PostgreSQL database, for several stateless instances sharing one database:
 * opens a pool, migrates (safe when instances start at once), and puts the parts together.
 */
import { KnotError } from "../../errors.ts";
import { createSqlStore } from "../sql/sql-store.ts";
import type { Store } from "../store.ts";
import { createAuditMethods } from "./audit.ts";
import { lockAuditChain } from "./locks.ts";
import { migrate } from "./migrate.ts";
import { createPgClient } from "./pg-client.ts";
import { openPgDb } from "./pg-driver.ts";

export interface PostgresStoreOptions {
  /**
   * A `postgres://` or `postgresql://` URL. To keep the tables in a schema other than `public`,
   * add `?options=-c%20search_path%3D<schema>` (the schema must exist).
   */
  readonly url: string;
  /** The clock for created/updated/revoked times; defaults to the system clock. */
  readonly now?: () => Date;
  /** Connections in the pool (default 10). */
  readonly poolSize?: number;
}

/**
 * Connects to (migrating as needed) the PostgreSQL store at `url`.
 * @example
 *   const store = await createPostgresStore({ url: "postgres://knot@127.0.0.1/knot" });
 *   try { console.log(await store.countUsers()); } finally { await store.close(); }
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const clock = options.now ?? (() => new Date());
  const db = openPgDb({ url: options.url, ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }) });
  const now = () => clock().toISOString();
  try {
    await migrate(db, now);
  } catch (error) {
    await db.close();
    if (error instanceof KnotError) throw error;
    // Say which database (without its password): pg's own message names only the socket.
    throw new Error(`Could not open the PostgreSQL database ${db.location}: ${(error as Error).message}`, { cause: error });
  }
  return createSqlStore(
    { client: createPgClient(db), now },
    { ...createAuditMethods({ db, now }), lockAuditChain, close: () => db.close() },
  );
}
