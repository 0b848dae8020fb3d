/**
 * A delivery's lease is renewed while its run goes on (waiting in the sandbox's queue included), so
 * neither this instance nor another claims it again and runs the sink twice; a delivery whose lease
 * was taken meanwhile has its run cancelled and settles nothing.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import type { AuditLog } from "../../src/audit/audit-log.ts";
import type { Authenticator } from "../../src/auth/authenticate.ts";
import { DEFAULT_CONFIG } from "../../src/config.ts";
import { startSinkDispatcher } from "../../src/events/sink-dispatcher.ts";
import { silentLogger } from "../../src/log.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { ToolRunner } from "../../src/tools/tool-runner.ts";
import { tempDir } from "../helpers/fixtures.ts";
import { toolInput } from "../store/helpers.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function setUp(runFor: (signal: AbortSignal | undefined) => Promise<void>) {
  const store = await createSqliteStore({ path: path.join(tempDir(), "lease.db") });
  const ada = await store.createUser({ name: "ada", isAdmin: false });
  const sink = await store.createUserTool(ada.id, toolInput({ name: "slow_sink", kind: "sink", events: ["tool.run"] }));
  await store.appendEvent({ id: "e1", type: "tool.run", at: new Date().toISOString(), data: null }, [sink.id]);
  const runs: string[] = [];
  const runner = {
    async run(_principal, _tool, params, options) {
      runs.push((params as { id: string }).id);
      await runFor(options?.signal);
      return options?.signal?.aborted
        ? { ok: false, error: { code: "CANCELLED", message: "cancelled" }, log: [], durationMs: 0 }
        : { ok: true, result: { kind: "text", text: "done" }, log: [], durationMs: 0 };
    },
  } as Partial<ToolRunner> as ToolRunner;
  const auth = { principalFor: async (userId: string) => ({ user: { ...ada, id: userId }, groups: [], granted: [], scopes: null, tokenId: null, via: "cli" }) } as Partial<Authenticator> as Authenticator;
  const audit = { record: async () => {} } as Partial<AuditLog> as AuditLog;
  const dispatcher = startSinkDispatcher({
    store, auth, runner, audit, logger: silentLogger, leaseMs: 300,
    settings: { ...DEFAULT_CONFIG.sinks, pollMs: 40 },
    audienceOf: (_type, ownerId) => ({ kind: "owner", userId: ownerId }),
  });
  return { store, sink, runs, dispatcher };
}

test("a delivery that runs longer than its lease is renewed, not claimed and run again", async () => {
  const { store, sink, runs, dispatcher } = await setUp(() => sleep(1_200)); // four leases long
  try {
    dispatcher.wake();
    for (let waited = 0; (await store.listDeliveries(sink.id, 5))[0]?.status !== "delivered" && waited < 5_000; waited += 50) await sleep(50);
    assert.deepEqual(runs, ["e1"], "the sink ran once");
    assert.equal((await store.listDeliveries(sink.id, 5))[0]?.status, "delivered");
  } finally {
    await dispatcher.stop();
    await store.close();
  }
});

test("a delivery whose lease another claimer took is cancelled and settles nothing", async () => {
  let cancelled = false;
  const { store, sink, runs, dispatcher } = await setUp(async (signal) => {
    await new Promise<void>((resolve) => {
      const done = setTimeout(resolve, 3_000);
      signal?.addEventListener("abort", () => {
        cancelled = true;
        clearTimeout(done);
        resolve();
      });
    });
  });
  try {
    dispatcher.wake();
    while (runs.length === 0) await sleep(20);
    // Another instance whose clock runs ahead takes the row (as if the lease had run out there).
    const far = new Date(Date.now() + 3_600_000);
    const stolen = await store.claimDeliveries(far.toISOString(), new Date(far.getTime() + 60_000).toISOString(), 5);
    assert.equal(stolen.length, 1);
    for (let waited = 0; !cancelled && waited < 2_000; waited += 20) await sleep(20);
    assert.equal(cancelled, true, "the run of the lost lease was cancelled");
    await sleep(100);
    assert.equal((await store.listDeliveries(sink.id, 5))[0]?.status, "pending", "left to the claimer that holds it");
  } finally {
    await dispatcher.stop();
    await store.close();
  }
});
