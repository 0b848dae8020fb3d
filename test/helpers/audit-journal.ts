/**
 * What the audit journal tests share (test/store/audit-journal*.test.ts): rows, counts read from
 * the file, the journal files, a normal-durability store or a bare journal, and a child process
 * that acknowledges rows and SIGKILLs itself.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { auditColumnValues } from "../../src/store/audit-row.ts";
import { createAuditMethods, normalize } from "../../src/store/sqlite/audit.ts";
import { createAuditJournal, OWNER_GONE_MS, type JournalOptions } from "../../src/store/sqlite/audit-journal.ts";
import { journalFolder, journalLine } from "../../src/store/sqlite/audit-journal-move.ts";
import { createAuditWriterThread } from "../../src/store/sqlite/audit-writer.ts";
import { createSqliteClient } from "../../src/store/sqlite/sqlite-client.ts";
import { openDatabase } from "../../src/store/sqlite/sqlite-driver.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { AuditEntryInput, Store } from "../../src/store/store.ts";
import { tempDir } from "./fixtures.ts";

export const entry = (tool: string, args: unknown = { text: "x" }): AuditEntryInput => ({
  at: new Date().toISOString(), userId: "u1", tokenId: null, client: null, surface: "mcp", tool,
  args, outcome: "ok", durationMs: 1, summary: null, requestId: `r-${tool}`,
});

/** A row as its journal line (what a writer puts in the file). */
export const lineOf = (tool: string): string => journalLine(auditColumnValues(normalize(entry(tool))));

export const count = (path: string, table: string) => {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()!.n);
  } finally {
    db.close();
  }
};

/** The chain's tools in chain order. */
export const chainTools = (path: string): string[] => {
  const chain = new DatabaseSync(path, { readOnly: true });
  try {
    return chain.prepare("SELECT tool FROM audit ORDER BY seq").all().map((row) => String(row.tool));
  } finally {
    chain.close();
  }
};

/** Waits (up to `limitMs`) until the chain holds `rows` rows. */
export async function waitForChainRows(path: string, rows: number, limitMs = 5_000): Promise<void> {
  for (let waited = 0; count(path, "audit") < rows && waited < limitMs; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The journal files beside the database at `path`. */
export const journals = (path: string): string[] => {
  try {
    return fs.readdirSync(journalFolder(path)).map((name) => join(journalFolder(path), name));
  } catch {
    return [];
  }
};

/** Writes a journal as another process names its own (`name` in the folder beside the database at `path`). */
export function writeForeignJournal(path: string, text: string, name = "000000000000001-0123456789ab-000000001.jsonl"): string {
  fs.mkdirSync(journalFolder(path), { recursive: true });
  const file = join(journalFolder(path), name);
  fs.writeFileSync(file, text);
  return file;
}

/** Makes every journal at `path` look untouched for longer than OWNER_GONE_MS (its owner gone). */
export function markJournalsIdle(path: string): void {
  const idle = new Date(Date.now() - OWNER_GONE_MS - 1_000);
  for (const file of journals(path)) fs.utimesSync(file, idle, idle);
}

export type JournalStore = Store & { enqueueAudit: NonNullable<Store["enqueueAudit"]> };

export async function openAt(path: string): Promise<JournalStore> {
  const store = await createSqliteStore({ path, durability: "normal" });
  assert.ok(store.enqueueAudit, "a normal-durability SQLite store accepts rows into its journal");
  return store as JournalStore;
}

/** A new database path with its tables made (a store opened and closed). */
export async function newDatabase(): Promise<string> {
  const path = join(tempDir(), "knot.db");
  await (await openAt(path)).close();
  return path;
}

/** Runs `check` on a fresh normal-durability store at a new path, closing it after. */
export async function withStore(check: (store: JournalStore, path: string) => Promise<void>): Promise<void> {
  const path = join(tempDir(), "knot.db");
  const store = await openAt(path);
  try {
    await check(store, path);
  } finally {
    await store.close();
  }
}

/** Asserts that a read of the audit log returns at once while another connection holds SQLite's write lock. */
export async function assertReadNeedsNoLock(path: string, store: JournalStore, rows: number, message: string): Promise<void> {
  const other = new DatabaseSync(path);
  try {
    other.exec("BEGIN IMMEDIATE");
    const started = performance.now();
    assert.equal((await store.queryAudit({})).length, rows);
    assert.ok(performance.now() - started < 1_000, message);
  } finally {
    if (other.isTransaction) other.exec("ROLLBACK");
    other.close();
  }
}

/** A journal on its own connection and thread, as the store builds it, with the given options. */
export async function withJournal(options: Pick<JournalOptions, "rotateBytes" | "writeSync">, check: (journal: ReturnType<typeof createAuditJournal>, path: string) => Promise<void>): Promise<void> {
  const path = await newDatabase();
  const db = openDatabase(path, "normal");
  const client = createSqliteClient(db);
  const thread = createAuditWriterThread(path, "normal");
  const audit = createAuditMethods({ db, now: () => new Date().toISOString() });
  const journal = createAuditJournal({ location: path, db, client, audit, mover: thread, ...options });
  try {
    await check(journal, path);
  } finally {
    await journal.close();
    await thread.close();
    client.close();
    db.close();
  }
}

/** A child process (a module file: its writer thread inherits its flags) that opens a store at `path`, runs `script` (with `store` and `rows(n, prefix)`), prints "acknowledged" and SIGKILLs itself. */
export function killedChild(path: string, script: string) {
  const file = join(tempDir(), "child.mjs");
  fs.writeFileSync(file, `
    const { createSqliteStore } = await import(${JSON.stringify(new URL("../../src/store/sqlite/sqlite-store.ts", import.meta.url).href)});
    const store = await createSqliteStore({ path: ${JSON.stringify(path)}, durability: "normal" });
    const rows = (n, prefix) => Array.from({ length: n }, (_, i) => ({ at: new Date().toISOString(), userId: "u1", tokenId: null, client: null,
      surface: "mcp", tool: prefix + i, args: { i }, outcome: "ok", durationMs: 1, summary: null, requestId: null }));
    ${script}
    process.stdout.write("acknowledged\\n");
    process.kill(process.pid, "SIGKILL");
  `);
  return spawnSync(process.execPath, ["--no-node-snapshot", "--disable-warning=ExperimentalWarning", file], { encoding: "utf8", timeout: 60_000 });
}
