/**
 * The SQLite audit inbox (src/store/sqlite/audit-inbox.ts): a call's row is acknowledged once it
 * is committed to `audit_inbox`, and joins the chain up to INBOX_DELAY_MS later (at once when a
 * batch is full), in order, exactly once,
 * whichever store on the file moves it. Every read of the audit log sees every acknowledged row.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { createAuditInboxQueue } from "../../src/audit/audit-queue.ts";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { createAuditMethods } from "../../src/store/sqlite/audit.ts";
import { createAuditInbox, INBOX_DELAY_MS } from "../../src/store/sqlite/audit-inbox.ts";
import { createSqliteClient } from "../../src/store/sqlite/sqlite-client.ts";
import { openDatabase } from "../../src/store/sqlite/sqlite-driver.ts";
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

async function openAt(path: string): Promise<Store & { enqueueAudit: NonNullable<Store["enqueueAudit"]> }> {
  const store = await createSqliteStore({ path, durability: "normal" });
  assert.ok(store.enqueueAudit, "a normal-durability SQLite store accepts rows into its inbox");
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

test("an acknowledged row is committed before it is in the chain, every read sees it, and the chain verifies", () => withStore(async (store, path) => {
  const mark = store.changeMark!();
  await store.enqueueAudit([entry("first"), entry("second", { secret: "masked:abc", nested: { list: [1, "two"] } })]);
  // Acknowledged: committed where another connection sees it, though not yet moved.
  assert.equal(count(path, "audit_inbox") + count(path, "audit"), 2);
  const rows = await store.queryAudit({});
  assert.deepEqual(rows.map((row) => row.tool), ["second", "first"]);
  assert.deepEqual(rows[0]!.args, { secret: "masked:abc", nested: { list: [1, "two"] } });
  assert.equal(count(path, "audit_inbox"), 0, "a read moved the inbox into the chain");
  assert.equal(store.changeMark!(), mark, "accepting and moving audit rows left the caches' change mark alone");
  assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 2 });
}));

test("rows move into the chain by themselves soon after, without a read", () => withStore(async (store, path) => {
  const queue = createAuditInboxQueue(store.enqueueAudit);
  await Promise.all(Array.from({ length: 300 }, (_, i) => queue.append(entry(`t${i}`))));
  for (let waited = 0; count(path, "audit_inbox") > 0 && waited < 5_000; waited += INBOX_DELAY_MS) {
    await new Promise((resolve) => setTimeout(resolve, INBOX_DELAY_MS));
  }
  assert.equal(count(path, "audit_inbox"), 0);
  assert.equal(count(path, "audit"), 300);
}));

test("a full batch of waiting rows moves on the next turn, not after the inbox delay", async () => {
  const path = join(tempDir(), "knot.db");
  await (await openAt(path)).close(); // creates the tables
  const db = openDatabase(path, "normal");
  const client = createSqliteClient(db);
  try {
    const audit = createAuditMethods({ db, now: () => new Date().toISOString() });
    const moved: number[] = [];
    const inbox = createAuditInbox(db, client, { appendTaken: (take, then) => audit.appendTaken(() => {
      const rows = take();
      moved.push(rows.length);
      return rows;
    }, then) });
    // A full batch (128 rows) does not wait the inbox delay (50 ms) for company.
    await inbox.enqueue(Array.from({ length: 128 }, (_, i) => entry(`t${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(moved[0], 128, "one move took the whole batch"); // (a full batch looks once more for rows left)
    assert.equal(count(path, "audit"), 128);
    inbox.stop();
  } finally {
    client.close();
    db.close();
  }
});

test("the chain keeps the order rows were acknowledged in, also around direct appends", () => withStore(async (store) => {
  await store.enqueueAudit([entry("a"), entry("b")]);
  const direct = await store.appendAudit(entry("c"));
  assert.equal(direct.seq, 3, "the direct append came after the rows waiting in the inbox");
  await store.enqueueAudit([entry("d")]);
  await store.appendAuditBatch([entry("e")]);
  assert.deepEqual((await store.queryAudit({})).map((row) => row.tool).reverse(), ["a", "b", "c", "d", "e"]);
}));

test("two stores on one file, both accepting and moving at once: each row enters the chain exactly once", async () => {
  const path = join(tempDir(), "knot.db");
  const stores = [await openAt(path), await openAt(path)];
  try {
    const queues = stores.map((store) => createAuditInboxQueue(store.enqueueAudit));
    await Promise.all(Array.from({ length: 400 }, (_, i) => queues[i % 2]!.append(entry(`s${i}`))));
    const reads = await Promise.all([stores[0]!.queryAudit({ limit: 1000 }), stores[1]!.queryAudit({ limit: 1000 })]);
    for (const rows of reads) assert.equal(rows.length, 400);
    assert.equal(new Set(reads[0]!.map((row) => row.tool)).size, 400, "no row twice");
    assert.deepEqual(await verifyAuditChain(stores[0]!.iterateAudit()), { ok: true, rows: 400 });
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
});

test("rows a SIGKILLed process acknowledged are moved into the chain by the next store to open the file", async () => {
  const path = join(tempDir(), "knot.db");
  // The child acknowledges 50 rows, then kills itself before its inbox timer can move them.
  const child = spawnSync(process.execPath, ["--no-node-snapshot", "--disable-warning=ExperimentalWarning", "--input-type=module", "-e", `
    const { createSqliteStore } = await import(${JSON.stringify(new URL("../../src/store/sqlite/sqlite-store.ts", import.meta.url).href)});
    const store = await createSqliteStore({ path: ${JSON.stringify(path)}, durability: "normal" });
    const rows = Array.from({ length: 50 }, (_, i) => ({ at: new Date().toISOString(), userId: "u1", tokenId: null, client: null,
      surface: "mcp", tool: "killed-" + i, args: { i }, outcome: "ok", durationMs: 1, summary: null, requestId: null }));
    await store.enqueueAudit(rows);
    process.stdout.write("acknowledged\\n");
    process.kill(process.pid, "SIGKILL");
  `], { encoding: "utf8" });
  assert.equal(child.signal, "SIGKILL", child.stderr);
  assert.match(child.stdout, /acknowledged/);
  assert.equal(count(path, "audit_inbox"), 50, "the killed process left its acknowledged rows in the inbox");
  const store = await openAt(path);
  try {
    assert.equal(count(path, "audit_inbox"), 0, "opening the store moved them");
    assert.deepEqual((await store.queryAudit({ limit: 1000 })).map((row) => row.tool).reverse(), Array.from({ length: 50 }, (_, i) => `killed-${i}`));
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 50 });
  } finally {
    await store.close();
  }
});

test("with durability \"full\" rows are appended (and fsynced) before they are acknowledged: no inbox", async () => {
  const store = await createSqliteStore({ path: join(tempDir(), "knot.db"), durability: "full" });
  try {
    assert.equal(store.enqueueAudit, undefined);
  } finally {
    await store.close();
  }
});

test("an inbox whose rows another store moved first goes idle: no empty moves in a loop", async () => {
  const path = join(tempDir(), "knot.db");
  const other = await openAt(path);
  const db = openDatabase(path, "normal");
  const client = createSqliteClient(db);
  try {
    const audit = createAuditMethods({ db, now: () => new Date().toISOString() });
    let moves = 0;
    const inbox = createAuditInbox(db, client, { appendTaken: (take, then) => (moves += 1, audit.appendTaken(take, then)) });
    await inbox.enqueue([entry("moved-by-the-other")]);
    assert.equal((await other.queryAudit({})).length, 1); // the other store moves it before this inbox's timer runs
    await new Promise((resolve) => setTimeout(resolve, 4 * INBOX_DELAY_MS));
    // One move found the inbox empty and stopped; rescheduling on rows "still waiting" ran hundreds.
    assert.ok(moves <= 1, `${moves} moves after the other store had moved the row`);
    inbox.stop();
  } finally {
    client.close();
    db.close();
    await other.close();
  }
});

test("closing a store moves what waits in its inbox", async () => {
  const path = join(tempDir(), "knot.db");
  const store = await openAt(path);
  await store.enqueueAudit([entry("a"), entry("b"), entry("c")]);
  await store.close(); // before the inbox timer could run
  assert.equal(count(path, "audit_inbox"), 0);
  assert.equal(count(path, "audit"), 3);
});

test("a row the chain would refuse is refused when it is offered, and the log stays readable", async () => {
  const path = join(tempDir(), "knot.db");
  const store = await openAt(path);
  try {
    await assert.rejects(store.enqueueAudit([{ ...entry("x"), tool: null as unknown as string }]), /NOT NULL/);
    await assert.rejects(store.enqueueAudit([{ ...entry("y"), surface: null as unknown as "mcp" }]), /NOT NULL/);
    await store.enqueueAudit([entry("fine")]);
    assert.deepEqual((await store.queryAudit({})).map((row) => row.tool), ["fine"]);
  } finally {
    await store.close();
  }
  const reopened = await openAt(path); // nothing poisoned the inbox: the next store opens
  await reopened.close();
});
