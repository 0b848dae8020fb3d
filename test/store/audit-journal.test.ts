/**
 * The SQLite audit journal (src/store/sqlite/audit-journal.ts): a call's row is acknowledged once
 * it is written to this process's journal file, and joins the chain on the writer thread up to
 * JOURNAL_MOVE_DELAY_MS later (at once when a batch is full), in order, exactly once, whichever
 * store on the file moves it. Every read of the audit log sees every acknowledged row.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { createAuditJournalQueue } from "../../src/audit/audit-queue.ts";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { auditColumnValues } from "../../src/store/audit-row.ts";
import { createAuditMethods, normalize } from "../../src/store/sqlite/audit.ts";
import { createAuditJournal, JOURNAL_MOVE_DELAY_MS, OWNER_GONE_MS } from "../../src/store/sqlite/audit-journal.ts";
import { createAuditWriterThread } from "../../src/store/sqlite/audit-writer.ts";
import { createSqliteClient } from "../../src/store/sqlite/sqlite-client.ts";
import { openDatabase } from "../../src/store/sqlite/sqlite-driver.ts";
import { journalFolder, journalLine } from "../../src/store/sqlite/audit-journal-move.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { AuditEntryInput, Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/fixtures.ts";

const entry = (tool: string, args: unknown = { text: "x" }): AuditEntryInput => ({
  at: new Date().toISOString(), userId: "u1", tokenId: null, client: null, surface: "mcp", tool,
  args, outcome: "ok", durationMs: 1, summary: null, requestId: `r-${tool}`,
});

const count = (path: string, table: string) => {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()!.n);
  } finally {
    db.close();
  }
};

/** The journal files beside the database at `path`. */
const journals = (path: string): string[] => {
  try {
    return fs.readdirSync(journalFolder(path)).map((name) => join(journalFolder(path), name));
  } catch {
    return [];
  }
};

async function openAt(path: string): Promise<Store & { enqueueAudit: NonNullable<Store["enqueueAudit"]> }> {
  const store = await createSqliteStore({ path, durability: "normal" });
  assert.ok(store.enqueueAudit, "a normal-durability SQLite store accepts rows into its journal");
  return store as Store & { enqueueAudit: NonNullable<Store["enqueueAudit"]> };
}

/** Runs `check` on a fresh normal-durability store at a new path, closing it after. */
async function withStore(check: (store: Awaited<ReturnType<typeof openAt>>, path: string) => Promise<void>): Promise<void> {
  const path = join(tempDir(), "knot.db");
  const store = await openAt(path);
  try {
    await check(store, path);
  } finally {
    await store.close();
  }
}

/** A child process (a module file: its writer thread inherits its flags) that opens a store at `path`, runs `script` (with `store` and `rows(n, prefix)`), prints "acknowledged" and SIGKILLs itself. */
function killedChild(path: string, script: string) {
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

test("an acknowledged row is written before it is in the chain, every read sees it, and the chain verifies", () => withStore(async (store, path) => {
  const mark = store.changeMark!();
  await store.enqueueAudit([entry("first"), entry("second", { secret: "masked:abc", nested: { list: [1, "two"] } })]);
  // Acknowledged: in the journal file, though not yet moved.
  assert.equal(count(path, "audit"), 0);
  assert.equal(journals(path).length, 1);
  assert.equal(fs.statSync(journals(path)[0]!).mode & 0o077, 0, "only the server's user may read the journal");
  assert.equal(fs.statSync(journalFolder(path)).mode & 0o077, 0);
  assert.equal(fs.readFileSync(journals(path)[0]!, "utf8").split("\n").filter(Boolean).length, 2);
  const rows = await store.queryAudit({});
  assert.deepEqual(rows.map((row) => row.tool), ["second", "first"]);
  assert.deepEqual(rows[0]!.args, { secret: "masked:abc", nested: { list: [1, "two"] } });
  assert.equal(count(path, "audit"), 2, "a read moved the journal into the chain");
  assert.equal(store.changeMark!(), mark, "accepting audit rows, and a read moving them, left the caches' change mark alone");
  assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 2 });
}));

test("rows move into the chain by themselves soon after, on the writer thread, without a read", () => withStore(async (store, path) => {
  const queue = createAuditJournalQueue(store.enqueueAudit);
  await Promise.all(Array.from({ length: 300 }, (_, i) => queue.append(entry(`t${i}`))));
  for (let waited = 0; count(path, "audit") < 300 && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(count(path, "audit"), 300);
  assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 300 });
}));

test("a few rows wait no longer than the move delay", () => withStore(async (store, path) => {
  await store.enqueueAudit([entry("lonely")]);
  assert.equal(count(path, "audit"), 0, "one row does not start a move by itself");
  for (let waited = 0; count(path, "audit") < 1 && waited < JOURNAL_MOVE_DELAY_MS * 3; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(count(path, "audit"), 1);
}));

test("the chain keeps the order rows were acknowledged in, also around direct appends", () => withStore(async (store) => {
  await store.enqueueAudit([entry("a"), entry("b")]);
  const direct = await store.appendAudit(entry("c"));
  assert.equal(direct.seq, 3, "the direct append came after the rows waiting in the journal");
  await store.enqueueAudit([entry("d")]);
  await store.appendAuditBatch([entry("e")]);
  assert.deepEqual((await store.queryAudit({})).map((row) => row.tool).reverse(), ["a", "b", "c", "d", "e"]);
}));

test("two stores on one file, both accepting and moving at once: each row enters the chain exactly once", async () => {
  const path = join(tempDir(), "knot.db");
  const stores = [await openAt(path), await openAt(path)];
  try {
    const queues = stores.map((store) => createAuditJournalQueue(store.enqueueAudit));
    await Promise.all(Array.from({ length: 400 }, (_, i) => queues[i % 2]!.append(entry(`s${i}`))));
    const reads = await Promise.all([stores[0]!.queryAudit({ limit: 1000 }), stores[1]!.queryAudit({ limit: 1000 })]);
    for (const rows of reads) assert.equal(rows.length, 400);
    assert.equal(new Set(reads[0]!.map((row) => row.tool)).size, 400, "no row twice");
    assert.deepEqual(await verifyAuditChain(stores[0]!.iterateAudit()), { ok: true, rows: 400 });
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
});

test("rows a SIGKILLed process acknowledged are moved by the next store to open the file; its journal goes once idle past OWNER_GONE_MS", async () => {
  const path = join(tempDir(), "knot.db");
  // The child acknowledges 50 rows, then kills itself before its thread can move them.
  const child = killedChild(path, "await store.enqueueAudit(rows(50, 'killed-'));");
  assert.equal(child.signal, "SIGKILL", child.stderr);
  assert.match(child.stdout, /acknowledged/);
  assert.equal(count(path, "audit"), 0);
  assert.equal(journals(path).length, 1, "the killed process left its acknowledged rows in its journal");
  const store = await openAt(path);
  try {
    assert.equal(count(path, "audit"), 50, "opening the store moved them");
    // Just touched: from here a process id cannot tell a dead owner from a live one in another container.
    assert.equal(journals(path).length, 1, "a journal touched lately is kept, moved");
    assert.deepEqual((await store.queryAudit({ limit: 1000 })).map((row) => row.tool).reverse(), Array.from({ length: 50 }, (_, i) => `killed-${i}`));
  } finally {
    await store.close();
  }
  const idle = new Date(Date.now() - OWNER_GONE_MS - 1_000);
  for (const file of journals(path)) fs.utimesSync(file, idle, idle);
  const later = await openAt(path);
  try {
    assert.deepEqual(journals(path), [], "the journal idle past OWNER_GONE_MS is deleted once moved");
    assert.equal(count(path, "audit_journal"), 0, "and its offset forgotten");
    assert.equal(count(path, "audit"), 50, "nothing moved twice");
    assert.deepEqual(await verifyAuditChain(later.iterateAudit()), { ok: true, rows: 50 });
  } finally {
    await later.close();
  }
});

test("another process's journal touched lately is moved but kept (its writer may be live, whatever its pid); idle past OWNER_GONE_MS it goes", async () => {
  const path = join(tempDir(), "knot.db");
  await (await openAt(path)).close();
  // Named as another process names its journals; two containers may both run as pid 1, so no pid decides.
  const file = join(journalFolder(path), "000000000000001-0123456789ab-000000001.jsonl");
  fs.mkdirSync(journalFolder(path), { recursive: true });
  fs.writeFileSync(file, journalLine(auditColumnValues(normalize(entry("live-elsewhere")))));
  const store = await openAt(path);
  try {
    assert.deepEqual(journals(path), [file], "a journal touched lately is kept");
    fs.appendFileSync(file, journalLine(auditColumnValues(normalize(entry("still-writing")))));
    assert.deepEqual((await store.queryAudit({})).map((row) => row.tool).reverse(), ["live-elsewhere", "still-writing"], "its writer's later rows move too");
  } finally {
    await store.close();
  }
  const idle = new Date(Date.now() - OWNER_GONE_MS - 1_000);
  fs.utimesSync(file, idle, idle);
  await (await openAt(path)).close();
  assert.deepEqual(journals(path), []);
  assert.equal(count(path, "audit"), 2);
});

test("a journal ending in a half line (a writer killed mid-line) costs a read no write lock", async () => {
  const path = join(tempDir(), "knot.db");
  await (await openAt(path)).close();
  fs.mkdirSync(journalFolder(path), { recursive: true });
  const line = journalLine(auditColumnValues(normalize(entry("whole"))));
  fs.writeFileSync(join(journalFolder(path), "000000000000001-0123456789ab-000000001.jsonl"), `${line}${line.slice(0, 30)}`);
  const store = await openAt(path);
  const other = new DatabaseSync(path);
  try {
    assert.deepEqual((await store.queryAudit({})).map((row) => row.tool), ["whole"]);
    other.exec("BEGIN IMMEDIATE");
    const started = performance.now();
    assert.equal((await store.queryAudit({})).length, 1);
    assert.ok(performance.now() - started < 1_000, "the read waited for the write lock over a half line");
  } finally {
    if (other.isTransaction) other.exec("ROLLBACK");
    other.close();
    await store.close();
  }
});

test("a journal the thread had partly moved when its process was killed: the rest moves, none twice", async () => {
  const path = join(tempDir(), "knot.db");
  // 300 rows start a move at once (a full batch); the child waits until some are in the chain, then adds 20 and dies.
  const child = killedChild(path, `
    await store.enqueueAudit(rows(300, "first-"));
    const { DatabaseSync } = await import("node:sqlite");
    const reader = new DatabaseSync(${JSON.stringify(path)}, { readOnly: true });
    for (let i = 0; Number(reader.prepare("SELECT count(*) AS n FROM audit").get().n) === 0; i++) {
      if (i > 2000) throw new Error("the writer thread moved nothing in 10 s");
      await new Promise((r) => setTimeout(r, 5));
    }
    await store.enqueueAudit(rows(20, "then-"));
  `);
  assert.equal(child.signal, "SIGKILL", child.stderr);
  const movedBefore = count(path, "audit");
  assert.ok(movedBefore > 0, `the thread had moved ${movedBefore} rows`);
  const store = await openAt(path);
  try {
    const tools = (await store.queryAudit({ limit: 1000 })).map((row) => row.tool).reverse();
    assert.deepEqual(tools, [...Array.from({ length: 300 }, (_, i) => `first-${i}`), ...Array.from({ length: 20 }, (_, i) => `then-${i}`)]);
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 320 });
  } finally {
    await store.close();
  }
});

test("only whole lines move: a half-written last line is not a row; a whole line that is not a row is recorded as damaged", async () => {
  const path = join(tempDir(), "knot.db");
  await (await openAt(path)).close(); // creates the tables and the folder's place
  fs.mkdirSync(journalFolder(path), { recursive: true });
  const name = "000000000000001-999999999-000000001-feedface.jsonl";
  const file = join(journalFolder(path), name);
  const line = journalLine(auditColumnValues(normalize(entry("whole"))));
  // Rows the chain's STRICT, NOT NULL and json_valid rules would refuse: each would fail every move if tried.
  const values = auditColumnValues(normalize(entry("typed")));
  const wrongType = journalLine(values.map((value, i) => (i === 8 ? "slow" : value)));
  const tooDeep = journalLine(values.map((value, i) => (i === 6 ? `${"[".repeat(1001)}${"]".repeat(1001)}` : value)));
  fs.writeFileSync(file, `${line}{"not a row"\n${wrongType}${tooDeep}${line.slice(0, 20)}`);
  const idle = new Date(Date.now() - OWNER_GONE_MS - 1_000); // nobody's journal: its owner stopped touching it long ago
  fs.utimesSync(file, idle, idle);
  const store = await openAt(path);
  try {
    const rows = (await store.queryAudit({})).reverse();
    assert.deepEqual(rows.map((row) => [row.tool, row.outcome]), [["whole", "ok"], ...Array.from({ length: 3 }, () => ["audit-journal", "DAMAGED_ROW"])]);
    assert.deepEqual(rows[1]!.args, { file: name, offset: Buffer.byteLength(line) });
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 4 });
    assert.deepEqual(journals(path), [], "a journal nobody writes is deleted once its whole lines moved (a half line was never acknowledged)");
  } finally {
    await store.close();
  }
});

test("with durability \"full\" rows are appended (and fsynced) before they are acknowledged: no journal", async () => {
  const store = await createSqliteStore({ path: join(tempDir(), "knot.db"), durability: "full" });
  try {
    assert.equal(store.enqueueAudit, undefined);
  } finally {
    await store.close();
  }
});

test("closing a store moves what waits in its journal and deletes the journal", async () => {
  const path = join(tempDir(), "knot.db");
  const store = await openAt(path);
  await store.enqueueAudit([entry("a"), entry("b"), entry("c")]);
  await store.close(); // before the thread's move could run
  assert.equal(count(path, "audit"), 3);
  assert.deepEqual(journals(path), []);
  assert.equal(count(path, "audit_journal"), 0);
});

test("rows an earlier version left in its audit inbox move into the chain first", async () => {
  const path = join(tempDir(), "knot.db");
  await (await openAt(path)).close();
  const db = new DatabaseSync(path);
  const values = auditColumnValues(normalize(entry("left-in-inbox")));
  db.prepare("INSERT INTO audit_inbox (at, user_id, token_id, client, surface, tool, args, outcome, duration_ms, summary, request_id, client_request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").run(...values);
  db.close();
  const store = await openAt(path);
  try {
    await store.enqueueAudit([entry("new")]);
    assert.deepEqual((await store.queryAudit({})).map((row) => row.tool).reverse(), ["left-in-inbox", "new"]);
    assert.equal(count(path, "audit_inbox"), 0);
  } finally {
    await store.close();
  }
});

test("a row the chain would refuse is refused when it is offered, and the log stays readable", async () => {
  const path = join(tempDir(), "knot.db");
  const store = await openAt(path);
  try {
    await assert.rejects(store.enqueueAudit([{ ...entry("x"), tool: null as unknown as string }]), /NOT NULL/);
    await assert.rejects(store.enqueueAudit([{ ...entry("y"), surface: null as unknown as "mcp" }]), /NOT NULL/);
    const deep = JSON.parse(`${"[".repeat(1001)}${"]".repeat(1001)}`) as unknown;
    await assert.rejects(store.enqueueAudit([{ ...entry("z"), args: deep }]), /nest more than 1000 levels/);
    await store.enqueueAudit([entry("fine")]);
    assert.deepEqual((await store.queryAudit({})).map((row) => row.tool), ["fine"]);
  } finally {
    await store.close();
  }
  const reopened = await openAt(path); // nothing poisoned the journal: the next store opens
  await reopened.close();
});

test("a journal past its size is retired (moved, deleted) and the next rows start another; every row moves once", async () => {
  const path = join(tempDir(), "knot.db");
  await (await openAt(path)).close(); // creates the tables
  const db = openDatabase(path, "normal");
  const client = createSqliteClient(db);
  const thread = createAuditWriterThread(path, "normal");
  const audit = createAuditMethods({ db, now: () => new Date().toISOString() });
  const journal = createAuditJournal({ location: path, db, client, audit, mover: thread, rotateBytes: 4_000 });
  try {
    const seen = new Set<string>();
    for (let round = 0; round < 6; round++) {
      // 300 rows: a full batch, so the thread moves them at once, and then the journal is past its size.
      await journal.enqueue(Array.from({ length: 300 }, (_, i) => entry(`r${round}-${i}`)));
      for (const file of journals(path)) seen.add(file);
      for (let waited = 0; count(path, "audit") < (round + 1) * 300 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await journal.close();
    assert.ok(seen.size >= 3, `the rows went to ${seen.size} journals`);
    assert.deepEqual(journals(path), [], "every retired journal was deleted");
    assert.equal(count(path, "audit_journal"), 0, "and its offset forgotten");
    assert.equal(count(path, "audit"), 1_800);
    const chain = new DatabaseSync(path, { readOnly: true });
    assert.equal(Number(chain.prepare("SELECT count(DISTINCT tool) AS n FROM audit").get()!.n), 1_800, "no row twice");
    chain.close();
  } finally {
    await thread.close();
    client.close();
    db.close();
  }
});

const bigEntry = (tool: string) => entry(tool, { text: "x".repeat(10_000) }); // ~10 KB a row: fewer than a batch's rows in one read

test("rows of ~10 KB: a read, a close and the thread each move every one (a read of the journal holds fewer rows than a batch)", async () => {
  const path = join(tempDir(), "knot.db");
  const store = await openAt(path);
  await store.enqueueAudit(Array.from({ length: 100 }, (_, i) => bigEntry(`read-${i}`)));
  assert.equal((await store.queryAudit({ limit: 1000 })).length, 100, "a read saw every acknowledged row");
  await store.enqueueAudit(Array.from({ length: 100 }, (_, i) => bigEntry(`closed-${i}`)));
  await store.close();
  assert.equal(count(path, "audit"), 200, "closing moved every row before deleting the journal");
  assert.deepEqual(journals(path), []);
  const thread = await openAt(path);
  try {
    await thread.enqueueAudit(Array.from({ length: 300 }, (_, i) => bigEntry(`thread-${i}`))); // a full batch: the thread moves at once
    for (let waited = 0; count(path, "audit") < 500 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(count(path, "audit"), 500, "the thread moved every row, not one read's worth");
    assert.deepEqual(await verifyAuditChain(thread.iterateAudit()), { ok: true, rows: 500 });
  } finally {
    await thread.close();
  }
});

test("a read with nothing to move does not wait for another writer's lock", async () => {
  const path = join(tempDir(), "knot.db");
  const store = await openAt(path);
  const other = new DatabaseSync(path);
  try {
    await store.enqueueAudit([entry("moved")]);
    await store.queryAudit({}); // moves it
    other.exec("BEGIN IMMEDIATE");
    const started = performance.now();
    assert.deepEqual((await store.queryAudit({})).map((row) => row.tool), ["moved"]);
    assert.ok(performance.now() - started < 1_000, "the read took the write lock though nothing waited");
  } finally {
    if (other.isTransaction) other.exec("ROLLBACK");
    other.close();
    await store.close();
  }
});

/** A journal on its own connection and thread, as the store builds it, with the given options. */
async function withJournal(options: { rotateBytes?: number; writeSync?: (fd: number, buffer: Buffer, offset: number) => number }, check: (journal: ReturnType<typeof createAuditJournal>, path: string) => Promise<void>) {
  const path = join(tempDir(), "knot.db");
  await (await openAt(path)).close(); // creates the tables
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

const chainTools = (path: string): string[] => {
  const chain = new DatabaseSync(path, { readOnly: true });
  try {
    return chain.prepare("SELECT tool FROM audit ORDER BY seq").all().map((row) => String(row.tool));
  } finally {
    chain.close();
  }
};

test("rows written across rotations without a pause keep the order they were acknowledged in", () => withJournal({ rotateBytes: 4_000 }, async (journal, path) => {
  const queue = createAuditJournalQueue((entries) => journal.enqueue(entries));
  const expected: string[] = [];
  for (let round = 0; round < 8; round++) {
    const batch = Array.from({ length: 300 }, (_, i) => `r${round}-${i}`);
    expected.push(...batch);
    await Promise.all(batch.map((tool) => queue.append(entry(tool))));
  }
  await journal.close();
  assert.deepEqual(chainTools(path), expected);
  assert.deepEqual(journals(path), []);
}));

test("a write that fails part-way (a full disk): the whole rows before it are acknowledged, the rest go again to a new journal, none twice", async () => {
  // As a disk filling up does: one short write (two and a half rows reach the file), then ENOSPC.
  let calls = 0;
  const writeSync = (fd: number, buffer: Buffer, offset: number) => {
    calls += 1;
    if (calls === 1) {
      const rowBytes = buffer.indexOf(0x0a) + 1;
      return fs.writeSync(fd, buffer, offset, rowBytes * 2 + Math.floor(rowBytes / 2));
    }
    if (calls === 2) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    return fs.writeSync(fd, buffer, offset);
  };
  await withJournal({ writeSync }, async (journal, path) => {
    const queue = createAuditJournalQueue((entries) => journal.enqueue(entries));
    const tools = Array.from({ length: 5 }, (_, i) => `row-${i}`);
    await Promise.all(tools.map((tool) => queue.append(entry(tool))));
    assert.equal(journals(path).length, 2, "the journal with the half line is written no more; the rest went to a new one");
    await journal.close();
    assert.deepEqual(chainTools(path), tools, "every row once, in order; the half line is no row");
    assert.deepEqual(journals(path), []);
  });
});
