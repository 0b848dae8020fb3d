/**
 * The SQLite append keeps the chain head it committed last in memory (src/store/sqlite/audit.ts).
 * Attack: make that remembered head stale — another instance, another connection with its own
 * thread, or a prune commits between two appends — so the next row would point at a row that is
 * no longer the last one (a forked chain). Each case must still verify as one chain.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { auditRowHash, auditRowHashWithArgs, canonicalJson, verifyAuditChain } from "../../src/store/audit-hash.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { AuditEntryInput, Store } from "../../src/store/store.ts";
import { tempDir } from "./helpers.ts";

const entry = (tool: string, at = new Date().toISOString()): AuditEntryInput => ({
  at, userId: "u1", tokenId: null, client: null, surface: "api", tool, args: { tool },
  outcome: "ok", durationMs: 1, summary: null, requestId: "r",
});

async function open(path: string, durability: "normal" | "full"): Promise<Store> {
  return createSqliteStore({ path, durability });
}

for (const durability of ["normal", "full"] as const) {
  test(`durability "${durability}": two instances appending in strict turns keep one chain with no gap`, async () => {
    const path = join(tempDir(), "knot.db");
    const [a, b] = [await open(path, durability), await open(path, durability)];
    try {
      for (let i = 0; i < 40; i += 1) {
        await (i % 2 === 0 ? a : b).appendAudit(entry(`turn-${i}`));
        // Batches too: a batch also starts from the remembered head.
        await (i % 2 === 0 ? b : a).appendAuditBatch([entry(`batch-${i}-1`), entry(`batch-${i}-2`)]);
      }
      assert.deepEqual(await verifyAuditChain(a.iterateAudit()), { ok: true, rows: 120 });
      const seqs = (await a.queryAudit({ limit: 500 })).map((row) => row.seq).sort((x, y) => x - y);
      assert.deepEqual(seqs, Array.from({ length: 120 }, (_, i) => i + 1));
    } finally {
      await a.close();
      await b.close();
    }
  });
}

test("a prune on the same instance between appends: the next row follows the anchor, not the pruned head", async () => {
  const path = join(tempDir(), "knot.db");
  const store = await open(path, "normal");
  try {
    await store.appendAuditBatch([entry("old-1", "2020-01-01T00:00:00.000Z"), entry("old-2", "2020-01-01T00:00:00.000Z")]);
    await store.appendAudit(entry("kept"));
    assert.equal(await store.pruneAudit("2021-01-01T00:00:00.000Z"), 2);
    await store.appendAudit(entry("after-prune"));
    const other = await open(path, "normal");
    try {
      await other.appendAudit(entry("from-another"));
    } finally {
      await other.close();
    }
    await store.appendAudit(entry("after-another"));
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 4 });
  } finally {
    await store.close();
  }
});

test("the append's hash with args already in canonical JSON is the recipe's hash, for any args", () => {
  fc.assert(fc.property(fc.jsonValue(), fc.anything(), fc.option(fc.string()), (json, anything, clientRequestId) => {
    for (const value of [json, anything]) {
      let argsJson: string;
      try {
        argsJson = canonicalJson(value);
      } catch {
        continue; // not serialisable: refused before hashing, as before
      }
      const row = { ...entry("t"), args: JSON.parse(argsJson) as unknown, seq: 7, ...(clientRequestId === null ? {} : { clientRequestId }) };
      assert.equal(auditRowHashWithArgs("p".repeat(64), row, argsJson), auditRowHash("p".repeat(64), row));
    }
  }), { numRuns: 300 });
});
