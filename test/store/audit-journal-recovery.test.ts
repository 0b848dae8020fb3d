/**
 * The SQLite audit journal when things go wrong (src/store/sqlite/audit-journal.ts): a process
 * killed before or during a move, journals of other processes (live or gone, whatever their pid),
 * damaged and half-written lines, a full disk part-way through a write, and rows an earlier
 * version left in its audit inbox. No acknowledged row is lost or moved twice, and no line can
 * make the moves fail.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { createAuditJournalQueue } from "../../src/audit/audit-queue.ts";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { auditColumnValues } from "../../src/store/audit-row.ts";
import { normalize } from "../../src/store/sqlite/audit.ts";
import { journalLine } from "../../src/store/sqlite/audit-journal-move.ts";
import {
  chainTools, count, entry, journals, killedChild, lineOf, markJournalsIdle, newDatabase, openAt, assertReadNeedsNoLock, withJournal, writeForeignJournal,
} from "../helpers/audit-journal.ts";
import { tempDir } from "../helpers/fixtures.ts";

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
  markJournalsIdle(path);
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
  const path = await newDatabase();
  // Named as another process names its journals; two containers may both run as pid 1, so no pid decides.
  const file = writeForeignJournal(path, lineOf("live-elsewhere"));
  const store = await openAt(path);
  try {
    assert.deepEqual(journals(path), [file], "a journal touched lately is kept");
    fs.appendFileSync(file, lineOf("still-writing"));
    assert.deepEqual((await store.queryAudit({})).map((row) => row.tool).reverse(), ["live-elsewhere", "still-writing"], "its writer's later rows move too");
  } finally {
    await store.close();
  }
  markJournalsIdle(path);
  await (await openAt(path)).close();
  assert.deepEqual(journals(path), []);
  assert.equal(count(path, "audit"), 2);
});

test("a journal ending in a half line (a writer killed mid-line) costs a read no write lock", async () => {
  const path = await newDatabase();
  const line = lineOf("whole");
  writeForeignJournal(path, `${line}${line.slice(0, 30)}`);
  const store = await openAt(path);
  try {
    assert.deepEqual((await store.queryAudit({})).map((row) => row.tool), ["whole"]);
    await assertReadNeedsNoLock(path, store, 1, "the read waited for the write lock over a half line");
  } finally {
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
  const path = await newDatabase();
  const name = "000000000000001-999999999-000000001-feedface.jsonl";
  const line = lineOf("whole");
  // Rows the chain's STRICT, NOT NULL and json_valid rules would refuse: each would fail every move if tried.
  const values = auditColumnValues(normalize(entry("typed")));
  const wrongType = journalLine(values.map((value, i) => (i === 8 ? "slow" : value)));
  const tooDeep = journalLine(values.map((value, i) => (i === 6 ? `${"[".repeat(1001)}${"]".repeat(1001)}` : value)));
  writeForeignJournal(path, `${line}{"not a row"\n${wrongType}${tooDeep}${line.slice(0, 20)}`, name);
  markJournalsIdle(path); // nobody's journal: its owner stopped touching it long ago
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

test("rows an earlier version left in its audit inbox move into the chain first", async () => {
  const path = await newDatabase();
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
