import assert from "node:assert/strict";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { auditRowHash, canonicalJson, GENESIS_HASH, verifyAuditChain, verifyStoredAudit } from "../../src/store/audit-hash.ts";
import type { AuditEntry, AuditEntryInput, Store } from "../../src/store/store.ts";
import { forEachStore, type BackendName } from "./helpers.ts";

function entry(overrides: Partial<AuditEntryInput> = {}): AuditEntryInput {
  return {
    at: "2026-01-01T00:00:00.000Z",
    userId: "u1",
    tokenId: "t1",
    client: "claude",
    surface: "mcp",
    tool: "export_metrics",
    args: { hours: 24, apiKey: "***" },
    outcome: "ok",
    durationMs: 12.5,
    summary: "exported 3 rows",
    requestId: "r1",
    ...overrides,
  };
}

/** The trigger that refuses UPDATE, as each dialect drops it (to tamper the way an attacker with SQL access could). */
function dropAppendOnlyTrigger(backend: BackendName): string {
  return backend === "sqlite" ? "DROP TRIGGER audit_append_only" : "DROP TRIGGER audit_append_only ON audit";
}

async function appendDays(store: Store, days: number): Promise<AuditEntry[]> {
  const rows: AuditEntry[] = [];
  for (let day = 1; day <= days; day += 1) {
    rows.push(await store.appendAudit(entry({ at: `2026-01-${String(day).padStart(2, "0")}T00:00:00.000Z`, tool: `tool${day % 3}` })));
  }
  return rows;
}

test("canonicalJson sorts keys at every depth and matches JSON for scalars", () => {
  assert.equal(canonicalJson({ b: [{ d: 1, c: null }], a: "x", u: undefined }), '{"a":"x","b":[{"c":null,"d":1}]}');
  assert.equal(canonicalJson([undefined, 1.5, "é"]), '[null,1.5,"é"]');
  assert.equal(canonicalJson(undefined), "null");
});

forEachStore((backend) => {
  test("append links each row to the previous one; the first links to 64 zeros", async () => {
    const { store } = await backend.open();
    const first = await store.appendAudit(entry());
    const second = await store.appendAudit(entry({ outcome: "PERMISSION_DENIED", args: null, summary: null }));
    assert.equal(first.seq, 1);
    assert.equal(first.prevHash, GENESIS_HASH);
    assert.equal(first.hash, auditRowHash(GENESIS_HASH, { ...entry(), seq: 1 }));
    assert.equal(second.seq, 2);
    assert.equal(second.prevHash, first.hash);
    assert.match(second.hash, /^[0-9a-f]{64}$/);
    // what was returned is what is read back
    assert.deepEqual(await store.queryAudit({}), [second, first]);
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 2 });
  });

  test("the hash covers what is stored: args key order and lone surrogates do not break verification", async () => {
    const { store } = await backend.open();
    const row = await store.appendAudit(entry({ args: { z: 1, a: { y: 2, b: [3, { d: 4, c: 5 }] } }, summary: "half \ud800 a pair" }));
    const [stored] = await store.queryAudit({});
    assert.deepEqual(stored, row);
    assert.equal(stored?.summary, "half \ufffd a pair");
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 1 });
  });

  test("a row changed with raw SQL is named by verification", async () => {
    const { store, sql } = await backend.open();
    await appendDays(store, 5);
    await assert.rejects(sql("UPDATE audit SET outcome = 'ok' WHERE seq = 3"), /append-only/);
    await sql(dropAppendOnlyTrigger(backend.name));
    await sql("UPDATE audit SET args = '{\"hours\":1}' WHERE seq = 3");
    const verdict = await verifyAuditChain(store.iterateAudit());
    assert.equal(verdict.ok, false);
    assert.equal(!verdict.ok && verdict.seq, 3);
    assert.match(!verdict.ok ? verdict.reason : "", /contents/);
  });

  test("a row removed, or rewritten with a fresh hash, breaks the link at the next row", async () => {
    const { store, sql } = await backend.open();
    const rows = await appendDays(store, 6);
    await sql("DELETE FROM audit WHERE seq = 2");
    await sql(dropAppendOnlyTrigger(backend.name));
    const forged = { ...rows[4]!, outcome: "ok", tool: "innocent" };
    await sql("UPDATE audit SET tool = 'innocent', hash = ? WHERE seq = 5", auditRowHash(forged.prevHash, forged));

    const verdict = await verifyAuditChain(store.iterateAudit());
    assert.deepEqual(verdict.ok ? null : verdict.seq, 3);
    const rest = (async function* () {
      for await (const row of store.iterateAudit()) if (row.seq >= 3) yield row;
    })();
    const later = await verifyAuditChain(rest);
    assert.deepEqual(later.ok ? null : [later.seq, /prevHash/.test(later.reason)], [6, true]);
  });

  test("rows removed from the start of the chain, not by a prune, are named by verification", async () => {
    const { store, sql } = await backend.open();
    await appendDays(store, 5);
    await sql("DELETE FROM audit WHERE seq <= 2");
    const verdict = await verifyStoredAudit(store);
    assert.deepEqual(verdict.ok ? null : verdict.seq, 3);
    assert.match(!verdict.ok ? verdict.reason : "", /start/);
    // After a real prune the chain starts at its anchor, and verifies.
    const { store: pruned } = await backend.open();
    await appendDays(pruned, 5);
    assert.equal(await pruned.pruneAudit("2026-01-03T00:00:00.000Z"), 2);
    assert.deepEqual(await verifyStoredAudit(pruned), { ok: true, rows: 3 });
  });

  test("a prune committed while a verification is reading does not read as tampering", async () => {
    const { store } = await backend.open();
    await appendDays(store, 6);
    // The rows as the store's paged read sees them: a page to seq 3, then the prune, then `seq > 3`.
    const rows = (async function* () {
      for await (const row of store.iterateAudit()) if (row.seq <= 3) yield row;
      assert.equal(await store.pruneAudit("2026-01-05T00:00:00.000Z"), 4);
      for await (const row of store.iterateAudit()) if (row.seq > 3) yield row;
    })();
    assert.deepEqual(await verifyStoredAudit(store, rows), { ok: true, rows: 5 });
  });

  test("prune removes the oldest prefix; the rest verifies and new rows continue the chain", async () => {
    const { store } = await backend.open();
    const rows = await appendDays(store, 6);
    assert.equal(await store.pruneAudit("2026-01-04T00:00:00.000Z"), 3);
    const left = await store.queryAudit({});
    assert.deepEqual(left.map((row) => row.seq), [6, 5, 4]);
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 3 });

    const next = await store.appendAudit(entry({ at: "2026-01-07T00:00:00.000Z" }));
    assert.equal(next.seq, 7);
    assert.equal(next.prevHash, rows[5]!.hash);

    // pruning everything keeps the seq and the link for the next row
    assert.equal(await store.pruneAudit("2027-01-01T00:00:00.000Z"), 4);
    assert.equal(await store.pruneAudit("2027-01-01T00:00:00.000Z"), 0);
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 0 });
    const after = await store.appendAudit(entry());
    assert.deepEqual([after.seq, after.prevHash], [8, next.hash]);
  });

  test("prune never cuts the chain in the middle when clocks disagree", async () => {
    const { store } = await backend.open();
    await store.appendAudit(entry({ at: "2026-01-01T00:00:00.000Z" }));
    await store.appendAudit(entry({ at: "2026-03-01T00:00:00.000Z" }));
    await store.appendAudit(entry({ at: "2026-01-02T00:00:00.000Z" })); // a skewed clock
    assert.equal(await store.pruneAudit("2026-02-01T00:00:00.000Z"), 1);
    assert.deepEqual((await store.queryAudit({})).map((row) => row.seq), [3, 2]);
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 2 });
  });

  test("concurrent appends from Promise.all form one valid chain", async () => {
    const { store } = await backend.open();
    const appended = await Promise.all(Array.from({ length: 50 }, (_, index) => store.appendAudit(entry({ args: { index } }))));
    assert.deepEqual(appended.map((row) => row.seq).sort((a, b) => a - b), Array.from({ length: 50 }, (_, index) => index + 1));
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 50 });
  });

  test("appends from several connections at once (worker threads) form one valid chain", async () => {
    const { store, location } = await backend.open();
    await store.appendAudit(entry());
    const run = (name: string) =>
      new Promise<void>((resolve, reject) => {
        const worker = new Worker(new URL("./audit-worker.ts", import.meta.url), { workerData: { location, rows: 60, name } });
        worker.once("error", reject);
        worker.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with ${code}`))));
      });
    await Promise.all([run("w1"), run("w2"), run("w3")]);
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 181 });
    const users = new Set((await store.queryAudit({ limit: 1000 })).map((row) => row.userId));
    assert.deepEqual([...users].sort(), ["u1", "w1", "w2", "w3"]);
  });

  test("iterateAudit pages through more rows than one page, in order", async () => {
    const { store } = await backend.open();
    await Promise.all(Array.from({ length: 1203 }, (_, index) => store.appendAudit(entry({ args: { index } }))));
    let expected = 1;
    for await (const row of store.iterateAudit()) assert.equal(row.seq, expected++);
    assert.equal(expected, 1204);
  });

  test("queryAudit filters, pages newest first, and bounds the limit", async () => {
    const { store } = await backend.open();
    await appendDays(store, 9);
    await store.appendAudit(entry({ userId: "u2", outcome: "PERMISSION_DENIED", at: "2026-01-10T00:00:00.000Z" }));
    const seqs = async (query: Parameters<Store["queryAudit"]>[0]) => (await store.queryAudit(query)).map((row) => row.seq);

    assert.deepEqual(await seqs({ userId: "u2" }), [10]);
    assert.deepEqual(await seqs({ outcome: "PERMISSION_DENIED" }), [10]);
    assert.deepEqual(await seqs({ tool: "tool1" }), [7, 4, 1]);
    assert.deepEqual(await seqs({ since: "2026-01-03T00:00:00.000Z", until: "2026-01-05T00:00:00.000Z" }), [4, 3]);
    assert.deepEqual(await seqs({ limit: 3 }), [10, 9, 8]);
    assert.deepEqual(await seqs({ limit: 3, before: 8 }), [7, 6, 5]);
    assert.deepEqual(await seqs({ tool: "tool1", userId: "u1", before: 7 }), [4, 1]);
    assert.deepEqual(await seqs({ limit: 0 }), [10]);
    assert.equal((await store.queryAudit({ limit: 1_000_000 })).length, 10);
    // A `before` no seq can be under answers nothing; one past every seq answers everything.
    assert.deepEqual(await seqs({ before: Number.NaN }), []);
    assert.deepEqual(await seqs({ before: -Infinity }), []);
    assert.equal((await seqs({ before: Infinity })).length, 10);
    assert.equal((await seqs({ before: 1e300 })).length, 10);
  });

  test("a query answers at most 1,000 rows, whatever limit it asks for", async () => {
    const { store } = await backend.open();
    await store.appendAuditBatch(Array.from({ length: 1_005 }, () => entry({})));
    assert.equal((await store.queryAudit({ limit: 5_000 })).length, 1_000);
    assert.equal((await store.queryAudit({ limit: Number.NaN })).length > 0, true);
  });

  test("an audit entry with a non-finite duration is refused", async () => {
    const { store } = await backend.open();
    await assert.rejects(store.appendAudit(entry({ durationMs: Number.NaN })), (error: { code?: string }) => error.code === "BAD_REQUEST");
    assert.deepEqual(await store.queryAudit({}), []);
  });
});
