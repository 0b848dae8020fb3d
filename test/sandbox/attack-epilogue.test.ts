/**
 * Attack: a thrown value whose getter queues a microtask while the host copies it (isolated-vm
 * reads `message`/`stack` after the task's own microtask checkpoint). A later synchronous call into
 * that isolate (reading the run's verdict, or making the next run's context in the warm isolate)
 * drained the microtask on the worker's main thread, outside every run limit: an endless loop there
 * stopped the heartbeat, the worker was killed without a culprit, and another user's run died with
 * it. Held when: the attacker's run fails on its own, the worker survives (no restart), and a
 * neighbour's run in the same worker completes — in both isolate modes (KNOT_SANDBOX_ISOLATE_REUSE).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { GuestUser, SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertOk, createReadyPool, makeJob, USER } from "./harness.ts";

const MALLORY: GuestUser = Object.freeze({ ...USER, id: "u-mallory", name: "mallory" });
const BOB: GuestUser = Object.freeze({ ...USER, id: "u-bob", name: "bob" });

let pool: SandboxPool;
before(async () => {
  pool = await createReadyPool({ workers: 1, runsPerWorker: 4, userRunsInFlight: 4, heartbeatMs: 300 });
});
after(() => pool.close());

const GETTERS = [
  'throw { get message() { Promise.resolve().then(() => { for (;;) {} }); return "x"; } };',
  'export default () => { throw { get stack() { Promise.resolve().then(() => { for (;;) {} }); return "s"; }, message: "m" }; };',
  'export default async () => { await null; throw { get message() { queueMicrotask(() => { for (;;) {} }); return "x"; } }; };',
];

for (const [index, source] of GETTERS.entries()) {
  test(`a microtask queued by a getter of the thrown value never runs outside the limits (${index + 1})`, async () => {
    const restarts = pool.stats().restarts;
    const bob = pool.run(makeJob("export default () => { const end = Date.now() + 1500; while (Date.now() < end) {} return 'bob ok'; }", { user: BOB }), { resolveModule: () => null });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const mallory = await pool.run(makeJob(source, { user: MALLORY, limits: ATTACK_LIMITS }), { resolveModule: () => null });
    assert.equal(mallory.ok, false, JSON.stringify(mallory));
    assert.deepEqual(assertOk(await bob), { kind: "text", text: "bob ok" });
    // Mallory's next run gets a context as usual (a warm isolate with the microtask left would hang here).
    assert.deepEqual(assertOk(await pool.run(makeJob("export default () => 'again'", { user: MALLORY }), { resolveModule: () => null })), { kind: "text", text: "again" });
    assert.equal(pool.stats().restarts, restarts, "the worker was killed");
  });
}
