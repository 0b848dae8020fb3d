/**
 * Moving an audit journal's rows into the chain (see audit-journal.ts), shared by the server's own
 * connection (before a read of the audit log) and the audit writer thread (in the background).
 *
 * How far a journal has moved is a byte offset in `audit_journal`, read and advanced inside the
 * chain append's own write transaction: two movers of one file (the thread and a reader, or two
 * processes) take turns on SQLite's write lock, and each starts where the last one committed, so
 * a row enters the chain exactly once. Only whole lines are moved: a line its writer has not
 * finished (or a killed process left half written, never acknowledged) waits or stays behind.
 */
import fs from "node:fs";
import path from "node:path";
import { AUDIT_COLUMNS, AUDIT_VALUE_COUNT, type StoredAuditEntry } from "../audit-row.ts";
import { toAuditEntryInput } from "../sql/records.ts";
import { jsonDepth } from "../../validation/json-depth.ts";
import type { AuditMethods } from "./audit.ts";
import type { Db, SqlRow } from "./sqlite-driver.ts";

/** Rows per move transaction (~25 µs each to hash and insert): a few ms of one connection's time. */
export const JOURNAL_MOVE_ROWS = 256;
/** Bytes read per look at a journal; a longer line (bounded rows never are) widens the look. */
const READ_BYTES = 256 * 1024;
const NEWLINE = 0x0a;
const COLUMN_NAMES = AUDIT_COLUMNS.split(", ");
const ARGS_AT = COLUMN_NAMES.indexOf("args");

/** The journal files of the database at `location` live in this folder beside it (like its -wal). */
export function journalFolder(location: string): string {
  return `${location}-audit`;
}

/** A journal line: the row's audit column values, in the order of AUDIT_COLUMNS. */
export function journalLine(values: readonly (string | number | null)[]): string {
  return `${JSON.stringify(values)}\n`;
}

/** SQLite's JSON functions refuse nesting deeper than this (json_valid included). */
const SQLITE_JSON_DEPTH = 1000;
/** The audit table's rule for each column value (STRICT types, NOT NULL, json_valid(args)). */
const REQUIRED = new Set(["at", "surface", "tool", "args", "outcome", "duration_ms"]);

/**
 * Why the chain would refuse a row of these column values, or null when it takes it: the one rule
 * both for a row before it is acknowledged (audit-journal.ts) and for a line read back, so no line
 * in a journal can fail every move. `parsedArgs`: the args already parsed from that text, if at hand.
 */
export function journalRowProblem(values: unknown, parsedArgs?: unknown): string | null {
  if (!Array.isArray(values) || values.length !== AUDIT_VALUE_COUNT) return `a row has ${AUDIT_VALUE_COUNT} column values`;
  for (const [i, name] of COLUMN_NAMES.entries()) {
    const value: unknown = values[i];
    if (value === null) {
      if (REQUIRED.has(name)) return `${name} must not be null (NOT NULL)`;
      continue;
    }
    if (name === "duration_ms") {
      if (typeof value !== "number" || !Number.isFinite(value)) return "duration_ms must be a finite number";
      continue;
    }
    if (typeof value !== "string") return `${name} must be text, not ${typeof value}`;
  }
  try {
    const args = parsedArgs !== undefined ? parsedArgs : JSON.parse(values[ARGS_AT] as string);
    if (jsonDepth(args, SQLITE_JSON_DEPTH) > SQLITE_JSON_DEPTH) return `args nest more than ${SQLITE_JSON_DEPTH} levels deep`;
  } catch {
    return "args must be JSON";
  }
  return null;
}

/**
 * A line read back. A line that is whole but not a row the chain takes (the disk damaged it) still
 * takes its place in the chain, as a row saying so, so the chain records that a row was lost there.
 */
function storedRow(line: string, file: string, offset: number): StoredAuditEntry {
  let values: unknown;
  try {
    values = JSON.parse(line);
  } catch {
    values = null;
  }
  if (journalRowProblem(values) !== null) {
    const argsJson = JSON.stringify({ file: path.basename(file), offset });
    return {
      argsJson,
      entry: {
        at: new Date().toISOString(), userId: null, tokenId: null, client: null, surface: "cli", tool: "audit-journal",
        args: JSON.parse(argsJson), outcome: "DAMAGED_ROW", durationMs: 0, summary: null, requestId: null,
      },
    };
  }
  const row: SqlRow = Object.fromEntries(COLUMN_NAMES.map((name, i) => [name, (values as (string | number | null)[])[i]!]));
  return { entry: toAuditEntryInput(row), argsJson: String(row.args) };
}

/** Runs `work` on `file` opened for reading, closing it after; `whenGone` when there is no such file. */
function withFile<T>(file: string, whenGone: T, work: (fd: number, size: number) => T): T {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return whenGone;
    throw error;
  }
  try {
    return work(fd, fs.fstatSync(fd).size);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whole lines of `file` from byte `from`, at most `maxRows` and about READ_BYTES of them, the
 * offset just past the last one, and the file's size (bytes beyond `end` may hold more lines).
 */
function readLines(file: string, from: number, maxRows: number): { lines: { text: string; offset: number }[]; end: number; size: number } {
  return withFile(file, { lines: [], end: from, size: from }, (fd, size) => {
    for (let want = READ_BYTES; ; want *= 2) {
      const length = Math.min(want, size - from);
      if (length <= 0) return { lines: [], end: from, size };
      const buffer = Buffer.allocUnsafe(length);
      const read = fs.readSync(fd, buffer, 0, length, from);
      const lines: { text: string; offset: number }[] = [];
      let start = 0;
      while (lines.length < maxRows) {
        const newline = buffer.indexOf(NEWLINE, start);
        if (newline < 0 || newline >= read) break;
        lines.push({ text: buffer.toString("utf8", start, newline), offset: from + start });
        start = newline + 1;
      }
      // No whole line in the look, but more of the file beyond it: one long line; look wider.
      if (lines.length === 0 && read === length && from + length < size) continue;
      return { lines, end: from + start, size };
    }
  });
}

/** How far `file` has moved (its offset in the database; 0 before its first move). */
function movedOf(db: Db, name: string): number {
  return Number(db.get("SELECT moved FROM audit_journal WHERE file = ?", name)?.moved ?? 0);
}

/** Whether `file` holds a whole line past byte `from`: read, no lock (a half line at its end is no line). */
function holdsLineAfter(file: string, from: number): boolean {
  return withFile(file, false, (fd, size) => {
    const chunk = Buffer.allocUnsafe(64 * 1024);
    for (let at = from; at < size;) {
      const read = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at);
      if (read <= 0) return false;
      if (chunk.subarray(0, read).includes(NEWLINE)) return true;
      at += read;
    }
    return false;
  });
}

/**
 * Moves the next whole lines of `file` (at most JOURNAL_MOVE_ROWS, about READ_BYTES) into the
 * chain in one transaction; whether it moved some and the file holds bytes beyond them. A file
 * with no whole line past its offset costs reads only, no write lock (a reader's drain must not
 * wait for another writer when there is nothing to move). Synchronous; `db` must not be inside a
 * transaction of its own.
 */
export function moveJournalBatch(db: Db, audit: Pick<AuditMethods, "appendTaken">, file: string): boolean {
  const name = path.basename(file);
  if (!holdsLineAfter(file, movedOf(db, name))) return false;
  let more = false;
  let end = 0;
  let taken = 0;
  audit.appendTaken(() => {
    const read = readLines(file, movedOf(db, name), JOURNAL_MOVE_ROWS);
    end = read.end;
    taken = read.lines.length;
    more = taken > 0 && read.end < read.size;
    return read.lines.map((line) => storedRow(line.text, file, line.offset));
  }, () => {
    if (taken > 0) db.run("INSERT INTO audit_journal (file, moved) VALUES (?, ?) ON CONFLICT (file) DO UPDATE SET moved = excluded.moved", name, end);
  });
  return more;
}

/** Moves every whole line of `file` (a half line at its end stays: it was never acknowledged). */
export function moveJournal(db: Db, audit: Pick<AuditMethods, "appendTaken">, file: string): void {
  while (moveJournalBatch(db, audit, file));
}

/**
 * Deletes a journal none will write again once all of its whole lines have moved, then forgets its
 * offset; false (the file kept) when whole lines are still there after the move (someone writes it after all).
 */
export function retireJournal(db: Db, audit: Pick<AuditMethods, "appendTaken">, file: string): boolean {
  moveJournal(db, audit, file);
  if (holdsLineAfter(file, movedOf(db, path.basename(file)))) return false;
  // The file goes first: a crash between the two leaves an offset without a file (forgotten at the
  // next open), never a file without its offset (which would move its rows again).
  fs.rmSync(file, { force: true });
  db.untracked(() => db.run("DELETE FROM audit_journal WHERE file = ?", path.basename(file)));
  return true;
}
