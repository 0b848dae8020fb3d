/**
 * `node --no-node-snapshot bench/audit.ts [--rows N]`: what a call waits for to have its audit row
 * acknowledged on SQLite (durability "normal"), one row at a time as at one client, through the
 * audit journal (the server's path: one write of a line, moved into the chain by the writer thread)
 * against the chain-append queue (the baseline: hash, four B-tree pages per commit), in turns, a store each.
 * Calls are spaced by a timer so each commit starts cold, as between real requests.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createAuditJournalQueue, createAuditQueue } from "../src/audit/audit-queue.ts";
import { verifyAuditChain } from "../src/store/audit-hash.ts";
import { createSqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import type { AuditEntryInput } from "../src/store/store.ts";
import { percentile } from "./stats.ts";

const row = (i: number): AuditEntryInput => ({
  at: new Date().toISOString(), userId: "u-bench", tokenId: "t-bench", client: "bench/1", surface: "mcp", tool: "bench/echo",
  args: { text: `hello ${i}` }, outcome: "ok", durationMs: 0.4, summary: null, requestId: `r${i}`,
});
const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;

/** The report's lines: each way's p50 and p90, their ratio, and whether the chain still verifies. */
export async function runAuditBench(rows: number): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "knot-bench-audit-"));
  // One file each: a direct append moves the journals first, which would charge the chain for the journal's rows.
  const stores = { journal: await createSqliteStore({ path: path.join(dir, "journal.db"), durability: "normal" }), chain: await createSqliteStore({ path: path.join(dir, "chain.db"), durability: "normal" }) };
  try {
    const queues = { journal: createAuditJournalQueue(stores.journal.enqueueAudit!.bind(stores.journal)), chain: createAuditQueue(stores.chain) };
    const samples: Record<keyof typeof queues, number[]> = { journal: [], chain: [] };
    for (let i = 0; i < rows; i += 1) {
      for (const name of ["journal", "chain"] as const) {
        const started = performance.now();
        await queues[name].append(row(i));
        samples[name].push(performance.now() - started);
        await pause();
      }
    }
    const lines = (["journal", "chain"] as const).map((name) => `audit row acknowledged via the ${name}: p50 ${us(percentile(samples[name], 50))}, p90 ${us(percentile(samples[name], 90))}`);
    const verified = await Promise.all([verifyAuditChain(stores.journal.iterateAudit()), verifyAuditChain(stores.chain.iterateAudit())]);
    lines.push(`journal ÷ chain (p50): ${(percentile(samples.journal, 50) / percentile(samples.chain, 50)).toFixed(2)}×; both chains of ${rows} rows verify: ${verified.every((v) => v.ok && v.rows === rows)}`);
    return lines;
  } finally {
    await Promise.all([stores.journal.close(), stores.chain.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { rows: { type: "string" } } });
  for (const line of await runAuditBench(Number(values.rows ?? 3000))) console.log(line);
}
