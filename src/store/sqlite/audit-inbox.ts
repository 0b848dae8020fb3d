/**
 * The audit inbox (issue 13 "audit off the hot path"): how a call's audit row is acknowledged
 * without waiting for the chain. Appending to the chain costs a read of the head, a hash and four
 * B-tree pages (the table, three indexes) per commit, on the event loop. A call instead waits
 * only for its row's commit into `audit_inbox` (one page, no index). Rows move from there into
 * `audit` in batches up to INBOX_DELAY_MS later: each batch is one write transaction that reads
 * the oldest rows, appends them to the chain and deletes them, so a row enters the chain once, in
 * order, whichever process or instance on the file moves it. Large batches are what make the move
 * cheap: a move's fixed cost (transaction, reading the rows back, warming the chain's pages) is
 * several rows' worth, so moving ~6 rows at a time (a 5 ms delay at one client) cost ~75 µs of
 * event loop per row, and ~60 rows at a time ~23 µs (measured on the plugin call path, issue 13).
 *
 * Durability is what it was: a row is acknowledged after a commit (WAL, `synchronous=NORMAL` on
 * this connection: it survives SIGKILL, see sqlite-driver.ts), and a row left in the inbox by a
 * killed process is moved by the next store that opens the file. Readers see every acknowledged
 * row: the store moves what is in the inbox before it reads, prunes or appends the audit log.
 */
import type { AuditEntryInput } from "../store.ts";
import { AUDIT_COLUMNS, auditColumnValues, type StoredAuditEntry } from "../audit-row.ts";
import { toAuditEntryInput } from "../sql/records.ts";
import { normalize, VALUES, type AuditMethods } from "./audit.ts";
import type { SqliteClient } from "./sqlite-client.ts";
import type { Db, SqlRow } from "./sqlite-driver.ts";

/**
 * How long a row may wait in the inbox, so the rows of many calls move in one transaction. Nobody
 * waits for the move: readers move the inbox first, and a row is durable once it is in the inbox.
 */
export const INBOX_DELAY_MS = 50;
/** Rows per move transaction (~25 µs each): one move holds the event loop for ~3 ms at most. */
const MOVE_BATCH = 128;
/** After a failed move (the file busy past the timeout, a full disk), when to try again: nothing is lost meanwhile. */
const RETRY_MS = 1_000;

export interface AuditInbox {
  /** Commits the rows to the inbox (normalised as the chain stores them); they move into the chain soon after. */
  enqueue(entries: readonly AuditEntryInput[]): Promise<void>;
  /** Moves every row in the inbox into the chain now (before a read, a prune or a direct append). */
  drain(): Promise<void>;
  /** Stops the timer; call `drain` first to move what is left. */
  stop(): void;
}

const INSERT = `INSERT INTO audit_inbox (${AUDIT_COLUMNS}) VALUES (${VALUES})`;
const OLDEST = "SELECT * FROM audit_inbox ORDER BY id LIMIT ?";

/** A waiting row as the chain appends it: the stored text as it is (normalised when it was offered). */
function storedRow(row: SqlRow): StoredAuditEntry {
  return { entry: toAuditEntryInput(row), argsJson: String(row.args) };
}

export function createAuditInbox(db: Db, client: SqliteClient, audit: Pick<AuditMethods, "appendTaken">): AuditInbox {
  let timer: NodeJS.Timeout | null = null;
  let timerDelayMs = 0;
  let stopped = false;
  /** Rows this inbox committed since its last move started: a full batch moves at once. */
  let waiting = 0;

  /** Moves up to MOVE_BATCH rows in one transaction; whether the inbox may hold more. */
  function moveBatch(): boolean {
    let taken = 0;
    let lastId = 0;
    audit.appendTaken(() => {
      const rows = db.all(OLDEST, MOVE_BATCH);
      taken = rows.length;
      lastId = taken > 0 ? Number(rows[taken - 1]!.id) : 0;
      return rows.map(storedRow);
    }, () => {
      if (taken > 0) db.run("DELETE FROM audit_inbox WHERE id <= ?", lastId);
    });
    return taken === MOVE_BATCH;
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    if (timer) {
      // A full batch waits no longer than the next turn, except after a failed move (back off).
      if (timerDelayMs <= delayMs || timerDelayMs === RETRY_MS) return;
      clearTimeout(timer);
    }
    timerDelayMs = delayMs;
    timer = setTimeout(() => {
      timer = null;
      waiting = 0;
      // A batch short of full emptied the inbox in its own transaction (rows another store moved
      // first included): the next enqueue schedules the next move.
      void client.exclusive(() => moveBatch()).then(
        (more) => void (more && schedule(0)), // the loop gets a turn between batches
        () => schedule(RETRY_MS), // the rows stay in the inbox; the next move takes them
      );
    }, delayMs);
    timer.unref(); // a store that is never closed leaves its rows for the next one that opens the file
  }

  return {
    async enqueue(entries) {
      const stored = entries.map(normalize);
      await client.exclusive(() => db.appendOnlyTransaction(() => {
        for (const row of stored) db.run(INSERT, ...auditColumnValues(row));
      }));
      waiting += stored.length;
      schedule(waiting >= MOVE_BATCH ? 0 : INBOX_DELAY_MS);
    },
    async drain() {
      await client.exclusive(() => {
        // An empty inbox costs one read, not a write transaction.
        if (db.get("SELECT 1 AS found FROM audit_inbox LIMIT 1") === undefined) return;
        while (moveBatch());
      });
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
