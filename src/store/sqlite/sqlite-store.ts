/** The Store on an embedded SQLite file: opens it, migrates it, and puts the parts together. */
import type { AuditEntryInput, Store } from "../store.ts";
import { createAuditMethods } from "./audit.ts";
import { createEventMethods } from "./events.ts";
import type { StoreContext } from "./context.ts";
import { createGrantMethods } from "./grants.ts";
import { migrate } from "./migrate.ts";
import { createAuditWriterThread } from "./audit-writer.ts";
import { MEMORY, openDatabase, type Durability } from "./sqlite-driver.ts";
import { createTokenMethods } from "./tokens.ts";
import { createUserToolMethods } from "./user-tools.ts";
import { createUserMethods } from "./users.ts";
import { createSettingMethods } from "./settings.ts";
import { createOAuthMethods } from "./oauth.ts";

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
  const db = openDatabase(options.path, options.durability);
  const context: StoreContext = { db, now: () => clock().toISOString() };
  try {
    migrate(db, context.now);
  } catch (error) {
    db.close();
    throw error;
  }
  // With "full", an audit commit waits for an fsync (ms on a busy disk): file databases commit
  // audit batches on a thread of their own (audit-writer.ts) so the event loop never waits for one.
  // With "normal" an audit commit is a write into the OS page cache (tens of µs, no fsync): the
  // batch is committed in place, which saves two thread hops that cost more than the commit.
  const durability = options.durability ?? "full";
  const auditWriter = db.location === MEMORY || durability === "normal" ? null : createAuditWriterThread(db.location, durability);
  const audit = createAuditMethods(context);
  return Object.freeze({
    ...createUserMethods(context),
    ...createGrantMethods(context),
    ...createTokenMethods(context),
    ...createUserToolMethods(context),
    ...audit,
    appendAuditBatch: auditWriter ? (entries: readonly AuditEntryInput[]) => auditWriter.appendBatch(entries) : audit.appendAuditBatch,
    async prepareAudit() {
      await auditWriter?.appendBatch([]); // an empty batch: starts the thread and opens its connection
    },
    changeMark: () => db.changeMark(),
    ...createEventMethods(context),
    ...createSettingMethods(context),
    ...createOAuthMethods(context),
    async close() {
      await auditWriter?.close();
      db.close();
    },
  });
}
