/** The Store on an embedded SQLite file: opens it, migrates it, and puts the parts together. */
import type { AuditEntryInput, Store } from "../store.ts";
import { createSqlStore } from "../sql/sql-store.ts";
import { createAuditMethods } from "./audit.ts";
import { createAuditWriterThread } from "./audit-writer.ts";
import { migrate } from "./migrate.ts";
import { createSqliteClient } from "./sqlite-client.ts";
import { MEMORY, openDatabase, type Durability } from "./sqlite-driver.ts";

export interface SqliteStoreOptions {
  /** A file path (its folder is created if missing) or ":memory:". */
  readonly path: string;
  /** Commit durability (see sqlite-driver.ts); default "full". */
  readonly durability?: Durability;
  /** The clock for created/updated/revoked times; defaults to the system clock. */
  readonly now?: () => Date;
}

/**
 * Opens (creating and migrating as needed) the SQLite store at `path`.
 * @example
 *   const store = await createSqliteStore({ path: "data/knot.db" });
 *   const admin = await store.createUser({ name: "admin", isAdmin: true });
 */
export async function createSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const clock = options.now ?? (() => new Date());
  const now = () => clock().toISOString();
  const db = openDatabase(options.path, options.durability);
  const client = createSqliteClient(db);
  try {
    // In its turn: another store of this process on the file may be inside a transaction.
    await client.exclusive(() => migrate(db, now));
  } catch (error) {
    client.close();
    db.close();
    throw error;
  }
  // File databases commit audit batches on a thread of their own (audit-writer.ts).
  const auditWriter = db.location === MEMORY ? null : createAuditWriterThread(db.location, options.durability ?? "full");
  // Appends on this connection wait for the client's open transaction: they must not join it.
  const audit = createAuditMethods({ db, now });
  return createSqlStore(
    { client, now },
    {
      appendAudit: (entry) => client.exclusive(() => audit.appendAudit(entry)),
      appendAuditBatch: auditWriter
        ? (entries: readonly AuditEntryInput[]) => auditWriter.appendBatch(entries)
        : (entries) => client.exclusive(() => audit.appendAuditBatch(entries)),
      async prepareAudit() {
        await auditWriter?.appendBatch([]); // an empty batch: starts the thread and opens its connection
      },
      // BEGIN IMMEDIATE (the client's transactions) already excludes every other appender.
      lockAuditChain: async () => {},
      async close() {
        await auditWriter?.close();
        await client.exclusive(() => undefined); // lets an open transaction finish first
        client.close();
        db.close();
      },
    },
  );
}
