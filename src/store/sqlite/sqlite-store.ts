/** The Store on an embedded SQLite file: opens it, migrates it, and puts the parts together. */
import type { AuditEntryInput, Store } from "../store.ts";
import { createSqlStore } from "../sql/sql-store.ts";
import { createAuditMethods } from "./audit.ts";
import { moveInboxLeftovers } from "./audit-inbox.ts";
import { createAuditJournal, moveJournals, recoverJournals } from "./audit-journal.ts";
import { createAuditWriterThread, type AuditWriterThread } from "./audit-writer.ts";
import { migrate } from "./migrate.ts";
import { createSqliteClient } from "./sqlite-client.ts";
import { MEMORY, openDatabase, type Db, type Durability, type MarkScope } from "./sqlite-driver.ts";

export interface SqliteStoreOptions {
  /** A file path (its folder is created if missing) or ":memory:". */
  readonly path: string;
  /** Commit durability (see sqlite-driver.ts); default "full". */
  readonly durability?: Durability;
  /** The request being served, if any: `changeMark` reads data_version once per request and turn (sqlite-driver.ts). */
  readonly markScope?: MarkScope;
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
  const db = openDatabase(options.path, options.durability, options.markScope);
  const client = createSqliteClient(db);
  try {
    // In its turn: another store of this process on the file may be inside a transaction.
    await client.exclusive(() => migrate(db, now));
  } catch (error) {
    client.close();
    db.close();
    throw error;
  }
  // With "full", an audit commit waits for an fsync (ms on a busy disk): file databases commit
  // audit batches on a thread of their own (audit-writer.ts) so the event loop never waits for one.
  // With "normal" a call's row is acknowledged once written to the audit journal (one write into
  // the OS page cache, audit-journal.ts), and the thread moves the journal into the chain.
  const durability = options.durability ?? "full";
  const thread = db.location === MEMORY ? null : createAuditWriterThread(db.location, durability);
  const auditWriter = durability === "normal" ? null : thread;
  // An automatic checkpoint runs on the connection whose commit crossed the WAL threshold and
  // fsyncs twice (measured: 10–40 ms every few hundred audit commits on a busy disk, on the event
  // loop). With "normal" the event loop's writes are few, so checkpoints move to the thread.
  const checkpoints = durability === "normal" && thread ? startCheckpoints(db, thread) : null;
  // Appends on this connection wait for the client's open transaction: they must not join it.
  const audit = createAuditMethods({ db, now });
  const onFile = db.location !== MEMORY;
  const journal = durability === "normal" && thread ? createAuditJournal({ location: db.location, db, client, audit, mover: thread }) : null;
  /** Every acknowledged row not yet in the chain moves now, on this connection (before a read, a prune or a direct append). */
  const moveWaiting = () => client.exclusive(() => {
    moveInboxLeftovers(db, audit);
    if (onFile) moveJournals(db.location, db, audit);
  });
  /** Stops what this store started and closes the file (after a failed open, and at close). */
  const release = async () => {
    checkpoints?.stop();
    await thread?.close();
    client.close();
    db.close();
  };
  try {
    // Rows a killed process acknowledged move now (its journal then goes); every read moves the rest first.
    await client.exclusive(() => moveInboxLeftovers(db, audit));
    if (onFile) await recoverJournals(db.location, db, client, audit);
  } catch (error) {
    await release();
    throw error;
  }
  const shared = createSqlStore(
    { client, now },
    {
      appendAudit: async (entry) => {
        await moveWaiting(); // rows acknowledged earlier come first in the chain
        return client.exclusive(() => audit.appendAudit(entry));
      },
      appendAuditBatch: async (entries) => {
        await moveWaiting();
        if (auditWriter) return auditWriter.appendBatch(entries);
        return client.exclusive(() => audit.appendAuditBatch(entries));
      },
      // Only with "normal" on a file: with "full" an acknowledgement waits for an fsync, which the
      // writer thread keeps off the event loop; in memory rows are appended in place.
      ...(journal ? { enqueueAudit: (entries: readonly AuditEntryInput[]) => journal.enqueue(entries) } : {}),
      async prepareAudit() {
        await thread?.appendBatch([]); // an empty batch: starts the thread and opens its connection
      },
      changeMark: () => db.changeMark(),
      // BEGIN IMMEDIATE (the client's transactions) already excludes every other appender.
      lockAuditChain: async () => {},
      async close() {
        await journal?.close().catch(() => {}); // what cannot move now stays for the next store to open the file
        await client.exclusive(() => undefined); // lets an open transaction finish first
        await release();
      },
    },
  );
  return Object.freeze({
    ...shared,
    queryAudit: async (query) => {
      await moveWaiting();
      return shared.queryAudit(query);
    },
    async *iterateAudit() {
      await moveWaiting();
      yield* shared.iterateAudit();
    },
    pruneAudit: async (olderThan) => {
      await moveWaiting();
      return shared.pruneAudit(olderThan);
    },
  } satisfies Store);
}

const CHECKPOINT_EVERY_MS = 1_000;

/** Turns off automatic checkpoints on `db` and runs them on the thread, once a second after any write. */
function startCheckpoints(db: Db, thread: AuditWriterThread): { stop(): void } {
  db.exec("PRAGMA wal_autocheckpoint = 0");
  let dirty = false;
  let running = false;
  // The change mark follows other processes' commits; the write count every write here, including
  // those that do not move the mark (audit appends, a token's last use).
  const markNow = () => `${db.changeMark()}|${db.writeCount()}`;
  let mark = markNow();
  const timer = setInterval(() => {
    if (running) return;
    const now = markNow();
    if (!dirty && now === mark) return;
    mark = now;
    dirty = false;
    running = true;
    // A failed checkpoint loses nothing (the WAL holds the commits); the next one retries.
    void thread.checkpoint().catch(() => (dirty = true)).finally(() => (running = false));
  }, CHECKPOINT_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
