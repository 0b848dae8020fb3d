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
 * acknowledged row; a journal a killed process left is moved, then deleted, by a later store that
 * opens the file once the journal has been idle for OWNER_GONE_MS (its owner touches it every
 * HEARTBEAT_MS; a process id alone cannot tell, across containers or after a restart). Journals are
 * named in creation order and moved in that order, so one process's rows enter the chain in the
 * order they were acknowledged.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { KnotError } from "../../errors.ts";
import { auditColumnValues } from "../audit-row.ts";
import { PartialBatchError } from "../partial-batch.ts";
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
/** A live journal's owner touches it this often, written to or not. */
const HEARTBEAT_MS = 5_000;
/** A journal of another process untouched this long is nobody's: it is moved and deleted. */
export const OWNER_GONE_MS = 60_000;
const SUFFIX = ".jsonl";

/** The journals this process writes (or has not yet deleted): a file of this process's id not here is an earlier store's of this process. */
const ownJournals = new Set<string>();
/** This process's id in journal names: random, because two containers may both run as pid 1. */
const PROCESS_ID = randomBytes(6).toString("hex");
let created = 0;
let lastStamp = 0;

/** The thread that moves journals off the event loop (audit-writer.ts). */
export interface JournalMover {
  moveJournal(file: string): Promise<void>;
  retireJournal(file: string): Promise<void>;
}

export interface AuditJournal {
  /**
   * Writes the rows to this process's journal; resolved once they are as durable as a commit. A
   * failed write rejects with a PartialBatchError saying how many of the rows were written whole.
   */
  enqueue(entries: readonly AuditEntryInput[]): Promise<void>;
  /** Moves what is left of this store's journals and deletes them. */
  close(): Promise<void>;
}

/** Whether nobody writes `file` any more: an earlier one of this process, or another process's idle past OWNER_GONE_MS. */
function ownerGone(file: string, now = Date.now()): boolean {
  if (path.basename(file).split("-")[1] === PROCESS_ID) return !ownJournals.has(file);
  try {
    return now - fs.statSync(file).mtimeMs > OWNER_GONE_MS;
  } catch {
    return false; // gone already, or not ours to judge
  }
}

/**
 * A journal name that sorts in creation order: a time that never goes back within this process
 * (the clock may step back), this process's id, and a counter.
 */
function journalName(): string {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  created += 1;
  return `${String(lastStamp).padStart(15, "0")}-${PROCESS_ID}-${String(created).padStart(9, "0")}${SUFFIX}`;
}

export interface JournalOptions {
  readonly location: string;
  readonly db: Db;
  readonly client: SqliteClient;
  readonly audit: AuditMethods;
  readonly mover: JournalMover;
  readonly rotateBytes?: number;
  /** The file write (tests give one that fails part-way, as a full disk does). */
  readonly writeSync?: (fd: number, buffer: Buffer, offset: number) => number;
}

export function createAuditJournal(options: JournalOptions): AuditJournal {
  const { db, client, audit, mover } = options;
  const rotateBytes = options.rotateBytes ?? ROTATE_BYTES;
  const writeSync = options.writeSync ?? ((fd: number, buffer: Buffer, offset: number) => fs.writeSync(fd, buffer, offset));
  const folder = journalFolder(options.location);
  let current: { file: string; fd: number; bytes: number; checkedAt: number } | null = null;
  /** Journals no longer written (rotated, or after a failed write), oldest first: retired before the current one moves. */
  const retiring: string[] = [];
  /** Rows written since the last move started. */
  let waiting = 0;
  let timer: NodeJS.Timeout | null = null;
  let moving: Promise<void> | null = null;
  let closed = false;

  const heartbeat = setInterval(() => {
    if (!current) return;
    try {
      const now = new Date();
      fs.futimesSync(current.fd, now, now);
    } catch {
      // the next write finds out what is wrong
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();

  function open(): { file: string; fd: number; bytes: number; checkedAt: number } {
    if (current) {
      // A process stopped longer than OWNER_GONE_MS may find its journal taken away: rows must not go to a deleted file.
      const now = Date.now();
      if (now - current.checkedAt < HEARTBEAT_MS) return current;
      current.checkedAt = now;
      if (fs.fstatSync(current.fd).nlink > 0) return current;
      stopWriting();
    }
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const file = path.join(folder, journalName());
    ownJournals.add(file);
    current = { file, fd: fs.openSync(file, "ax", 0o600), bytes: 0, checkedAt: Date.now() };
    return current;
  }

  /** The current journal is written no more: it waits to be retired before any later one moves. */
  function stopWriting(): void {
    if (!current) return;
    const { file, fd } = current;
    current = null;
    retiring.push(file);
    try {
      fs.closeSync(fd);
    } catch {
      // closed or not, nothing more is written to it
    }
  }

  /**
   * One write of the rows' lines. A write that fails part-way leaves the whole lines before it
   * acknowledged (a mover may already have taken them) and at most one half line, which is never
   * a row: the file is written no more, so nothing is appended after the half line.
   */
  function write(lines: readonly string[]): void {
    const journal = open();
    const buffer = Buffer.from(lines.join(""), "utf8");
    let done = 0;
    try {
      while (done < buffer.length) done += writeSync(journal.fd, buffer, done);
    } catch (error) {
      journal.bytes += done;
      stopWriting();
      let whole = 0;
      for (let bytes = 0; whole < lines.length && bytes + Buffer.byteLength(lines[whole]!) <= done; whole += 1) bytes += Buffer.byteLength(lines[whole]!);
      throw new PartialBatchError(whole, error);
    }
    journal.bytes += buffer.length;
  }

  function schedule(delayMs: number): void {
    if (closed || moving) return;
    if (timer && delayMs > 0) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(startMove, delayMs);
    timer.unref(); // a store never closed leaves its journal for the next one that opens the file
  }

  /** On the thread: the journals written no more (oldest first), then the current one; a failure stops there, so order holds. */
  async function moveOnThread(): Promise<void> {
    while (retiring.length > 0) {
      await mover.retireJournal(retiring[0]!); // rejects when whole lines were left: tried again, in order
      ownJournals.delete(retiring.shift()!);
    }
    if (current) await mover.moveJournal(current.file);
    if (current && current.bytes >= rotateBytes) stopWriting();
    if (retiring.length > 0) waiting = Math.max(waiting, 1); // the next move retires it
  }

  function startMove(): void {
    timer = null;
    if (closed || waiting === 0) return;
    const taken = waiting;
    waiting = 0;
    moving = moveOnThread().then(
      () => {
        moving = null;
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
      try {
        write(lines);
      } finally {
        waiting += lines.length;
        schedule(waiting >= JOURNAL_MOVE_ROWS ? 0 : JOURNAL_MOVE_DELAY_MS);
      }
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      if (timer) clearTimeout(timer);
      timer = null;
      await moving;
      stopWriting();
      // On this connection, oldest first; what cannot move now stays for the next store to open the file.
      await client.exclusive(() => {
        while (retiring.length > 0 && retireJournal(db, audit, retiring[0]!)) ownJournals.delete(retiring.shift()!);
      });
    },
  };
}

/** Runs `work` on each journal in `folder`, oldest first; a file that cannot be read (not one of ours) does not stop the others. */
function eachJournal(folder: string, work: (file: string) => void): void {
  for (const file of journalFiles(folder)) {
    try {
      work(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EACCES" && code !== "EISDIR" && code !== "EPERM") throw error;
    }
  }
}

/** Moves every whole line of every journal in the folder into the chain, on `db` (before a read, a prune or a direct append). Synchronous. */
export function moveJournals(location: string, db: Db, audit: Pick<AuditMethods, "appendTaken">): void {
  eachJournal(journalFolder(location), (file) => moveJournal(db, audit, file));
}

/**
 * At open: moves every journal in the folder, deletes those nobody writes any more, and forgets
 * the offsets of journals that are gone. What cannot move now stays for the next reader or store.
 */
export async function recoverJournals(location: string, db: Db, client: SqliteClient, audit: AuditMethods): Promise<void> {
  const folder = journalFolder(location);
  await client.exclusive(() => {
    // A journal still written to after all (its owner misjudged) is kept, its rows moved.
    eachJournal(folder, (file) => (ownerGone(file) ? void retireJournal(db, audit, file) : moveJournal(db, audit, file)));
    // The folder is listed inside the write transaction: no journal can get its first offset meanwhile.
    db.untracked(() => db.transaction(() => {
      const present = new Set(journalFiles(folder).map((file) => path.basename(file)));
      for (const row of db.all("SELECT file FROM audit_journal")) {
        if (!present.has(String(row.file))) db.run("DELETE FROM audit_journal WHERE file = ?", String(row.file));
      }
    }));
  });
}

/** The journals in `folder`, oldest first by name (none when the folder does not exist yet). */
function journalFiles(folder: string): string[] {
  try {
    return fs.readdirSync(folder).filter((name) => name.endsWith(SUFFIX)).sort().map((name) => path.join(folder, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
