/**
 * SQLite durability modes for audit rows (issue 13 speed work, docs/security-services.md §4.16). With
 * "normal" (the server's default) audit batches commit on the server's own connection without an
 * fsync, while every other write stays fsynced; WAL checkpoints run on the writer thread, so the
 * database file still catches up with the WAL. With "full" the writer thread commits them. In both,
 * an appended row is visible to another connection as soon as the append resolves, audit appends
 * do not move the change mark the caches rely on, and every other write does.
 */
import assert from "node:assert/strict";
import { copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { createAuditQueue } from "../../src/audit/audit-queue.ts";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { AuditEntryInput } from "../../src/store/store.ts";
import { tempDir } from "../helpers/fixtures.ts";

const entry = (i: number): AuditEntryInput => ({
  at: new Date().toISOString(), userId: "u1", tokenId: null, client: null, surface: "mcp", tool: "echo",
  args: { i, text: "x".repeat(300) }, outcome: "ok", durationMs: 1, summary: null, requestId: `r${i}`,
});

for (const durability of ["normal", "full"] as const) {
  test(`durability "${durability}": rows are visible to another connection once appended; only non-audit writes move the change mark`, async () => {
    const path = join(tempDir(), "knot.db");
    const store = await createSqliteStore({ path, durability });
    try {
      const queue = createAuditQueue(store);
      const mark = store.changeMark!();
      await Promise.all(Array.from({ length: 50 }, (_, i) => queue.append(entry(i))));
      const other = new DatabaseSync(path);
      assert.equal(Number(other.prepare("SELECT count(*) AS n FROM audit").get()!.n), 50);
      // "full" commits on the thread (another connection), which data_version counts; "normal" commits here.
      if (durability === "normal") assert.equal(store.changeMark!(), mark, "audit appends moved the change mark");
      const moved = store.changeMark!();
      other.prepare("INSERT INTO settings (name, value) VALUES ('other.process', 'x')").run();
      other.close();
      assert.notEqual(store.changeMark!(), moved, "another connection's commit did not move the change mark");
      const before = store.changeMark!();
      await store.createUser({ name: "ada", isAdmin: false });
      assert.notEqual(store.changeMark!(), before, "a write here did not move the change mark");
      assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 50 });
    } finally {
      await store.close();
    }
  });
}

test(`durability "normal": the writer thread checkpoints the WAL into the database file`, async () => {
  const path = join(tempDir(), "knot.db");
  const store = await createSqliteStore({ path, durability: "normal" });
  try {
    const check = new DatabaseSync(path);
    check.close();
    const sizeBefore = statSync(path).size;
    const queue = createAuditQueue(store);
    await Promise.all(Array.from({ length: 1_000 }, (_, i) => queue.append(entry(i))));
    // Pages reach the database file only by a checkpoint, and the server's connection runs none.
    for (let waited = 0; statSync(path).size === sizeBefore && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    assert.ok(statSync(path).size > sizeBefore, "no checkpoint copied the WAL into the database file");
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 1_000 });
  } finally {
    await store.close();
  }
});

test(`durability "normal": a write that does not move the change mark (a token's last use) is still checkpointed`, async () => {
  const path = join(tempDir(), "knot.db");
  const store = await createSqliteStore({ path, durability: "normal" });
  try {
    const user = await store.createUser({ name: "ada", isAdmin: false });
    const token = await store.createToken({ userId: user.id, name: "t", secretHash: "h".repeat(64), scopes: null, expiresAt: null });
    /** last_used_at as the database file alone has it (a copy without the WAL: only checkpoints reach it). */
    const inFile = (): unknown => {
      const copy = join(tempDir(), "copy.db");
      copyFileSync(path, copy);
      const db = new DatabaseSync(copy);
      try {
        return db.prepare("SELECT last_used_at FROM tokens WHERE id = ?").get(token.id)?.last_used_at;
      } catch {
        return undefined; // not even the schema is checkpointed yet
      } finally {
        db.close();
      }
    };
    for (let waited = 0; inFile() === undefined && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    assert.equal(inFile(), null, "the token never reached the database file");
    const mark = store.changeMark!();
    await store.touchToken(token.id, "2026-12-01T00:00:00.000Z");
    assert.equal(store.changeMark!(), mark);
    for (let waited = 0; inFile() === null && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    assert.equal(inFile(), "2026-12-01T00:00:00.000Z", "no checkpoint copied the token's last use into the database file");
  } finally {
    await store.close();
  }
});
