/**
 * The SQLite audit journal (src/store/sqlite/audit-journal.ts): a call's row is acknowledged once
 * it is written to this process's journal file, and joins the chain on the writer thread up to
 * JOURNAL_MOVE_DELAY_MS later (at once when a batch is full), in order, exactly once, whichever
 * store on the file moves it. Every read of the audit log sees every acknowledged row. What goes
 * wrong (kills, damage, other processes, a full disk) is in audit-journal-recovery.test.ts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createAuditJournalQueue } from "../../src/audit/audit-queue.ts";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { JOURNAL_MOVE_DELAY_MS } from "../../src/store/sqlite/audit-journal.ts";
import { journalFolder } from "../../src/store/sqlite/audit-journal-move.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import {
  assertReadNeedsNoLock, chainTools, count, entry, journals, openAt, waitForChainRows, withJournal, withStore,
} from "../helpers/audit-journal.ts";
import { tempDir } from "../helpers/fixtures.ts";

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
  await waitForChainRows(path, 300);
  assert.equal(count(path, "audit"), 300);
  assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 300 });
}));

test("a few rows wait no longer than the move delay", () => withStore(async (store, path) => {
  await store.enqueueAudit([entry("lonely")]);
  assert.equal(count(path, "audit"), 0, "one row does not start a move by itself");
  await waitForChainRows(path, 1, JOURNAL_MOVE_DELAY_MS * 3);
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

test("a journal past its size is retired (moved, deleted) and the next rows start another; every row moves once", () => withJournal({ rotateBytes: 4_000 }, async (journal, path) => {
  const seen = new Set<string>();
  for (let round = 0; round < 6; round++) {
    // 300 rows: a full batch, so the thread moves them at once, and then the journal is past its size.
    await journal.enqueue(Array.from({ length: 300 }, (_, i) => entry(`r${round}-${i}`)));
    for (const file of journals(path)) seen.add(file);
    await waitForChainRows(path, (round + 1) * 300);
  }
  await journal.close();
  assert.ok(seen.size >= 3, `the rows went to ${seen.size} journals`);
  assert.deepEqual(journals(path), [], "every retired journal was deleted");
  assert.equal(count(path, "audit_journal"), 0, "and its offset forgotten");
  assert.equal(count(path, "audit"), 1_800);
  assert.equal(new Set(chainTools(path)).size, 1_800, "no row twice");
}));

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
    await waitForChainRows(path, 500, 10_000);
    assert.equal(count(path, "audit"), 500, "the thread moved every row, not one read's worth");
    assert.deepEqual(await verifyAuditChain(thread.iterateAudit()), { ok: true, rows: 500 });
  } finally {
    await thread.close();
  }
});

test("a read with nothing to move does not wait for another writer's lock", () => withStore(async (store, path) => {
  await store.enqueueAudit([entry("moved")]);
  await store.queryAudit({}); // moves it
  await assertReadNeedsNoLock(path, store, 1, "the read took the write lock though nothing waited");
}));

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
