/**
 * When the audit queue waits a turn of the event loop before committing (issue 13, issue 11's
 * one-client ratio): the wait lets the rows of calls finishing in the same turn share one commit,
 * which only pays when other audited calls are still working. A lone call's row is committed at
 * once (the wait cost it ~30 µs of its latency and grouped nothing); while others work, a row
 * still waits for them to join its batch.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { auditAround, createCallTally } from "../../src/audit/audit-around.ts";
import { createAuditInboxQueue } from "../../src/audit/audit-queue.ts";
import type { AuditRecord } from "../../src/audit/audit-log.ts";
import type { AuditEntryInput } from "../../src/store/store.ts";

const entry = (tool: string): AuditEntryInput => ({
  at: new Date().toISOString(), userId: "u1", tokenId: null, client: null, surface: "api", tool, args: {},
  outcome: "ok", durationMs: 1, summary: null, requestId: "r",
});

function recordingQueue(othersWorking: () => boolean) {
  const events: string[] = [];
  const batches: string[][] = [];
  const queue = createAuditInboxQueue(async (entries) => {
    events.push("commit");
    batches.push(entries.map((e) => e.tool));
  }, { othersWorking });
  return { queue, events, batches };
}

test("with no other audited call working, a row is committed without waiting a turn of the event loop", async () => {
  const { queue, events } = recordingQueue(() => false);
  setImmediate(() => events.push("next turn"));
  await queue.append(entry("alone"));
  events.push("acknowledged");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(events, ["commit", "acknowledged", "next turn"]);
});

test("while other audited calls work, a row waits a turn so the rows finishing with it share its commit", async () => {
  const { queue, events, batches } = recordingQueue(() => true);
  setImmediate(() => events.push("next turn"));
  const first = queue.append(entry("first"));
  const second = Promise.resolve().then(() => queue.append(entry("second"))); // a call finishing later in this turn
  await Promise.all([first, second]);
  assert.equal(events[0], "next turn");
  assert.deepEqual(batches, [["first", "second"]]);
});

test("the tally counts audited calls from start until their row is handed to the queue, throws included", async () => {
  const tally = createCallTally();
  const seen: number[] = [];
  const around = auditAround(async (_row: AuditRecord) => void seen.push(tally.working), tally);
  const meta = { principal: null, surface: "api" as const, tool: "t", args: {} };
  let release!: () => void;
  const slow = around(meta, async () => {
    await new Promise<void>((resolve) => (release = resolve));
    return { value: 1, outcome: "ok" };
  });
  await around(meta, async () => {
    assert.equal(tally.working, 2, "both calls are working");
    return { value: 2, outcome: "ok" };
  });
  await assert.rejects(around(meta, async () => { throw new Error("boom"); }));
  release();
  await slow;
  // Each row is handed over with only the others counted: 1 while the slow call still worked, then 0.
  assert.deepEqual(seen, [1, 1, 0]);
  assert.equal(tally.working, 0);
});
