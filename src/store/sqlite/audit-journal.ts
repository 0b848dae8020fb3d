/**
 * The audit journal (issue 13 "audit off the hot path"): how a call's audit row is acknowledged on
 * SQLite with `durability = "normal"` without a database commit on the event loop. A commit into a
 * table, even one small page, measured 100–120 µs per call in the running server (the SQLite code
 * and pages are cold between calls; 20 µs in a loop), and moving rows into the chain on the event
 * loop another 60–70 µs per call. A call instead waits for one `write()` of its row, as a line, to
 * this process's journal file (a folder beside the database, like its -wal); the audit writer
 * thread moves the lines into the chain in batches, on its own connection, off the event loop.
 *
 * Durability is what it was: the row is in the OS page cache when the call is answered, as a WAL
 * commit with `synchronous=NORMAL` is (it survives SIGKILL, not power loss). Each journal's moved
 * offset is kept in the database and advanced in the chain append's transaction, so a row enters
 * the chain exactly once whoever moves it (audit-journal-move.ts); every read, prune or direct
 * append of the audit log moves every journal in the folder first, so no reader misses an
 * acknowledged row; a journal a killed process left is moved, then deleted, by the next store that
 * opens the file. Rows of one process enter the chain in the order they were acknowledged.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { KnotError } from "../../errors.ts";
import { auditColumnValues } from "../audit-row.ts";
import type { AuditEntryInput } from "../store.ts";
import { normalize, type AuditMethods } from "./audit.ts";
import { journalFolder, journalLine, journalRowProblem, JOURNAL_MOVE_ROWS, moveJournal, retireJournal } from "./audit-journal-move.ts";
import type { SqliteClient } from "./sqlite-client.ts";
import type { Db } from "./sqlite-driver.ts";

/** How long acknowledged rows may wait in the journal before the thread moves them (readers move them first). */
export const JOURNAL_MOVE_DELAY_MS = 1_000;
/** Past this size a journal is retired (moved, deleted) and the next row starts a new one. */
const ROTATE_BYTES = 8 * 1024 * 1024;
/** After a failed move (the thread gone, the file busy past the timeout): nothing is lost meanwhile. */
const RETRY_MS = 1_000;
const SUFFIX = ".jsonl";

/** The thread that moves journals off the event loop (audit-writer.ts). */
export interface JournalMover {
  moveJournal(file: string): Promise<void>;
  retireJournal(file: string): Promise<void>;
}

export interface AuditJournal {
  /** Writes the rows to this process's journal; resolved once they are as durable as a commit. */
  enqueue(entries: readonly AuditEntryInput[]): Promise<void>;
  /** Moves what is left of this store's journal and deletes it. */
  close(): Promise<void>;
}

/** Whether the process `pid` (from a journal's name) has ended: its journal is then nobody's. */
function ownerEnded(file: string): boolean {
  const pid = Number(path.basename(file).split("-")[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

export function createAuditJournal(options: { location: string; db: Db; client: SqliteClient; audit: AuditMethods; mover: JournalMover; rotateBytes?: number }): AuditJournal {
  const { db, client, audit, mover } = options;
  const rotateBytes = options.rotateBytes ?? ROTATE_BYTES;
  const folder = journalFolder(options.location);
  let current: { file: string; fd: number; bytes: number } | null = null;
  /** Rows written since the last move started. */
  let waiting = 0;
  let timer: NodeJS.Timeout | null = null;
  let moving: Promise<void> | null = null;
  let closed = false;

  function open(): { file: string; fd: number; bytes: number } {
    if (current) return current;
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const file = path.join(folder, `${process.pid}-${randomBytes(6).toString("hex")}${SUFFIX}`);
    current = { file, fd: fs.openSync(file, "ax", 0o600), bytes: 0 };
    return current;
  }

  function write(text: string): void {
    const journal = open();
    const buffer = Buffer.from(text, "utf8");
    try {
      // A write to a file may be short; the rest follows at once (only this process writes here).
      for (let done = 0; done < buffer.length;) done += fs.writeSync(journal.fd, buffer, done);
    } catch (error) {
      // A full disk after part of the lines: cut them off, or the next row would join a half line.
      try {
        fs.ftruncateSync(journal.fd, journal.bytes);
      } catch {
        // Retired as it is (its half line was never acknowledged); the next row starts another.
        current = null;
        fs.close(journal.fd, () => void mover.retireJournal(journal.file).catch(() => {}));
      }
      throw error;
    }
    journal.bytes += buffer.length;
  }

  /** The current journal, once large, is closed; the thread retires it and the next row opens another. */
  function rotate(): void {
    if (!current || current.bytes < rotateBytes) return;
    const { file, fd } = current;
    current = null;
    fs.closeSync(fd);
    void mover.retireJournal(file).catch(() => {}); // else moved and deleted by a later drain or open
  }

  function schedule(delayMs: number): void {
    if (closed || moving) return;
    if (timer && delayMs > 0) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(startMove, delayMs);
    timer.unref(); // a store never closed leaves its journal for the next one that opens the file
  }

  function startMove(): void {
    timer = null;
    if (closed || !current || waiting === 0) return;
    const taken = waiting;
    waiting = 0;
    moving = mover.moveJournal(current.file).then(
      () => {
        moving = null;
        rotate();
        if (waiting > 0) schedule(waiting >= JOURNAL_MOVE_ROWS ? 0 : JOURNAL_MOVE_DELAY_MS);
      },
      () => {
        moving = null;
        waiting += taken;
        schedule(RETRY_MS);
      },
    );
  }

  return {
    async enqueue(entries) {
      if (closed) throw new KnotError("INTERNAL", "the audit journal is closed");
      const lines = entries.map((entry) => {
        const stored = normalize(entry);
        const values = auditColumnValues(stored);
        // A line the chain would refuse would fail every move: it is refused before it is acknowledged.
        const problem = journalRowProblem(values, stored.entry.args);
        if (problem) throw new KnotError("BAD_REQUEST", `an audit row the chain would refuse: ${problem}`);
        return journalLine(values);
      });
      write(lines.join(""));
      waiting += lines.length;
      schedule(waiting >= JOURNAL_MOVE_ROWS ? 0 : JOURNAL_MOVE_DELAY_MS);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await moving;
      if (!current) return;
      const { file, fd } = current;
      current = null;
      fs.closeSync(fd);
      await client.exclusive(() => retireJournal(db, audit, file));
    },
  };
}

/** Moves every whole line of every journal in the folder into the chain, on `db` (before a read, a prune or a direct append). Synchronous. */
export function moveJournals(location: string, db: Db, audit: Pick<AuditMethods, "appendTaken">): void {
  for (const file of journalFiles(journalFolder(location))) moveJournal(db, audit, file);
}

/**
 * At open: moves every journal in the folder, deletes those whose process has ended, and forgets
 * the offsets of journals that are gone. What cannot move now stays for the next reader or store.
 */
export async function recoverJournals(location: string, db: Db, client: SqliteClient, audit: AuditMethods): Promise<void> {
  const folder = journalFolder(location);
  await client.exclusive(() => {
    for (const file of journalFiles(folder)) {
      if (ownerEnded(file)) retireJournal(db, audit, file);
      else moveJournal(db, audit, file);
    }
    // The folder is listed inside the write transaction: no journal can get its first offset meanwhile.
    db.untracked(() => db.transaction(() => {
      const present = new Set(journalFiles(folder).map((file) => path.basename(file)));
      for (const row of db.all("SELECT file FROM audit_journal")) {
        if (!present.has(String(row.file))) db.run("DELETE FROM audit_journal WHERE file = ?", String(row.file));
      }
    }));
  });
}

/** The journals in `folder`, oldest name first (none when the folder does not exist yet). */
function journalFiles(folder: string): string[] {
  try {
    return fs.readdirSync(folder).filter((name) => name.endsWith(SUFFIX)).sort().map((name) => path.join(folder, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
