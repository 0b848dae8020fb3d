import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createSandboxPool, type SandboxPool, type SandboxPoolOptions } from "../../sandbox/index.ts";
import { resolvePoolOptions } from "../../sandbox/host/options.ts";
import { assertError, assertOk, createTestPool, ISOLATE_REUSE, makeJob, runTool, USER } from "./harness.ts";

let pool: SandboxPool;
before(() => {
  pool = createTestPool({ workers: 1, runsPerWorker: 2 });
});
after(() => pool.close());

const SPIN = (ms: number) => `export default () => { const end = Date.now() + ${ms}; while (Date.now() < end) {} return "spun" }`;
const FOREVER = `export default () => new Promise(() => {})`;

test("runs beyond the free slots wait in the queue and all complete", async () => {
  const runs = Array.from({ length: 6 }, () => runTool(pool, SPIN(60)));
  await new Promise((resolve) => setTimeout(resolve, 20));
  const stats = pool.stats();
  assert.ok(stats.busy <= 2, `busy ${stats.busy}`);
  assert.ok(stats.busy + stats.queued >= 4, JSON.stringify(stats));
  for (const outcome of await Promise.all(runs)) assert.deepEqual(assertOk(outcome), { kind: "text", text: "spun" });
  assert.deepEqual({ ...pool.stats(), restarts: 0, reusedIsolates: 0 }, { workers: 1, busy: 0, queued: 0, restarts: 0, recycled: 0, reusedIsolates: 0 });
});

test("a worker is retired gracefully after recycleAfterRuns: no run fails, a fresh worker takes over", async () => {
  const recycling = createTestPool({ workers: 1, runsPerWorker: 2, recycleAfterRuns: 3 });
  try {
    const outcomes = [];
    for (let round = 0; round < 4; round++) {
      outcomes.push(...(await Promise.all(Array.from({ length: 3 }, () => runTool(recycling, SPIN(20))))));
    }
    for (const outcome of outcomes) assert.deepEqual(assertOk(outcome), { kind: "text", text: "spun" });
    const stats = recycling.stats();
    assert.ok(stats.recycled >= 3, JSON.stringify(stats));
    assert.equal(stats.restarts, 0, "retiring is not a crash");
  } finally {
    await recycling.close();
  }
});

test("aborting hooks.signal cancels a running run promptly, and a queued one before it starts", async () => {
  const running = new AbortController();
  const queued = new AbortController();
  const started = Date.now();
  const first = runTool(pool, FOREVER, { hooks: { signal: running.signal } });
  const second = runTool(pool, FOREVER, { hooks: { signal: running.signal } });
  const third = runTool(pool, FOREVER, { hooks: { signal: queued.signal } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  queued.abort();
  assertError(await third, "CANCELLED", /before it started/);
  running.abort();
  assertError(await first, "CANCELLED");
  assertError(await second, "CANCELLED");
  assert.ok(Date.now() - started < 1_500, "cancellation is prompt");
  const aborted = AbortSignal.abort();
  assertError(await runTool(pool, SPIN(1), { hooks: { signal: aborted } }), "CANCELLED");
  assert.equal(pool.stats().restarts, 0, "a cooperative cancel does not kill the worker");
});

test("misuse is an error, not an outcome: bad jobs, duplicate ids, unknown options", async () => {
  await assert.rejects(pool.run({ ...makeJob("1"), limits: { ...makeJob("1").limits, cpuMs: -1 } }, { resolveModule: () => null }), /limits\.cpuMs/);
  await assert.rejects(pool.run({ ...makeJob("1"), user: null as never }, { resolveModule: () => null }), /job\.user/);
  await assert.rejects(pool.run({ ...makeJob("1"), loopback: { baseUrl: "ftp://x", token: "t" } }, { resolveModule: () => null }), /baseUrl/);
  await assert.rejects(pool.run(makeJob("1"), {} as never), /resolveModule/);
  const job = makeJob(SPIN(50));
  const first = pool.run(job, { resolveModule: () => null });
  await assert.rejects(pool.run(job, { resolveModule: () => null }), /already going on/);
  assertOk(await first);
  assert.throws(() => createSandboxPool({ worker: 2 } as never), /unknown option "worker"/);
  assert.throws(() => createSandboxPool({ workers: 0 }), /workers must be an integer from 1/);
});

test("close() cancels what is queued or running and later runs are refused", async () => {
  const own = createTestPool({ workers: 1, runsPerWorker: 1 });
  assertOk(await runTool(own, SPIN(1)));
  const running = runTool(own, FOREVER);
  const waiting = runTool(own, FOREVER);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await own.close();
  assertError(await running, "CANCELLED");
  assertError(await waiting, "CANCELLED", /closed/);
  assertError(await runTool(own, SPIN(1)), "CANCELLED", /closed/);
  assert.equal(own.stats().workers, 0);
});

/** A user of the harness's kind, by id (the isolate cache is kept per user and tool code). */
const userNamed = (id: string) => ({ ...USER, id, name: id });

/** For the tests of the warm-isolate cache, which "never" mode does not have. */
const KEPT_ONLY = { skip: ISOLATE_REUSE === "never" ? "isolates are not kept in this mode" : false };

/** Runs twice `pauseMs` apart in a new one-worker pool; answers how many runs reused a warm isolate. */
async function reusedAcrossPause(options: SandboxPoolOptions, pauseMs: number): Promise<number> {
  const kept = createTestPool({ workers: 1, runsPerWorker: 1, ...options });
  try {
    // The same tool both times: a warm isolate serves one tool's code only (sandbox/worker/home-owner.ts).
    assertOk(await runTool(kept, "export default () => 1"));
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    assertOk(await runTool(kept, "export default () => 1"));
    return kept.stats().reusedIsolates;
  } finally {
    await kept.close();
  }
}

test("isolateMaxIdle bounds the warm user isolates a worker keeps: past it the oldest user's goes", KEPT_ONLY, async () => {
  async function reusedOnReturn(isolateMaxIdle: number): Promise<number> {
    const kept = createTestPool({ workers: 1, runsPerWorker: 1, isolateMaxIdle });
    try {
      for (const id of ["a", "b", "c"]) assertOk(await runTool(kept, "export default () => 1", { user: userNamed(id) }));
      // Parking is a tick after the answer: let the third isolate settle before the first user comes back.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assertOk(await runTool(kept, "export default () => 1", { user: userNamed("a") }));
      return kept.stats().reusedIsolates;
    } finally {
      await kept.close();
    }
  }
  assert.equal(await reusedOnReturn(3), 1, "three kept: the first user's isolate is still warm");
  assert.equal(await reusedOnReturn(2), 0, "two kept: the first user's isolate was the oldest and went");
  assert.throws(() => createSandboxPool({ isolateMaxIdle: 0 }), /isolateMaxIdle/);
});

test("past isolateMaxIdle the isolate that goes is one of the user who has the most waiting, not another user's only one", KEPT_ONLY, async () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50)); // parking is a tick after the answer
  // One tool throughout (a warm isolate serves one tool's code only): it spins for `spinMs` when asked.
  const tool = `export default ({ params }) => { const end = Date.now() + (params.spinMs ?? 0); while (Date.now() < end) {} return "spun" }`;
  const once = (pool: SandboxPool, id: string) => runTool(pool, tool, { user: userNamed(id) }).then(assertOk);
  // Two runs at once of a user with no isolate waiting: two new isolates (had one run waited for the other's, it would count as reused).
  async function twoAtOnce(pool: SandboxPool, id: string): Promise<void> {
    const before = pool.stats().reusedIsolates;
    for (const outcome of await Promise.all([0, 1].map(() => runTool(pool, tool, { user: userNamed(id), params: { spinMs: 200 } })))) assertOk(outcome);
    await settle();
    assert.equal(pool.stats().reusedIsolates - before, 0, `${id}'s two runs overlapped, each in a new isolate`);
  }
  const reusedBy = async (pool: SandboxPool, id: string) => {
    const before = pool.stats().reusedIsolates;
    await once(pool, id);
    await settle();
    return pool.stats().reusedIsolates - before;
  };

  // Waiting: b's one (the oldest), a's two; then c's makes four of three allowed: one of a's goes.
  const kept = createTestPool({ workers: 1, runsPerWorker: 2, userRunsInFlight: 2, isolateMaxIdle: 3 });
  try {
    await once(kept, "b");
    await settle();
    await twoAtOnce(kept, "a");
    await once(kept, "c");
    await settle();
    assert.equal(await reusedBy(kept, "b"), 1, "b's only isolate was kept (one of a's two went)");
    assert.equal(await reusedBy(kept, "c"), 1, "c's only isolate was kept");
    assert.equal(await reusedBy(kept, "a"), 1, "a kept one");
  } finally {
    await kept.close();
  }
  // The isolate being parked counts with its user's: b and c wait with one each, a parks a second.
  const parking = createTestPool({ workers: 1, runsPerWorker: 2, userRunsInFlight: 2, isolateMaxIdle: 2 });
  try {
    for (const id of ["b", "c"]) {
      await once(parking, id);
      await settle();
    }
    await twoAtOnce(parking, "a"); // the first of a's parks (b's goes), the second takes the room of a's first
    assert.equal(await reusedBy(parking, "a"), 1, "a kept one");
    // Checked after a's: a run of b or c without an isolate parks one more and makes room again.
    assert.equal(await reusedBy(parking, "c"), 1, "c's only isolate was kept");
  } finally {
    await parking.close();
  }
});

test("the default isolateMaxIdle is 4 × runsPerWorker, with idle isolates (up to ~20 MB each) at most half the memory budget; the oldest go past ⅞ of it", () => {
  assert.equal(resolvePoolOptions({}).isolateMaxIdle, 12, "512 MB ÷ 40 is under 4 × 4");
  assert.equal(resolvePoolOptions({ runsPerWorker: 2 }).isolateMaxIdle, 8);
  assert.equal(resolvePoolOptions({ runsPerWorker: 64 }).isolateMaxIdle, 12, "512 MB ÷ 40");
  assert.equal(resolvePoolOptions({ runsPerWorker: 64, workerMemoryMb: 4_096 }).isolateMaxIdle, 102);
  assert.equal(resolvePoolOptions({ runsPerWorker: 64, workerMemoryMb: 64 }).isolateMaxIdle, 1);
  assert.equal(resolvePoolOptions({ runsPerWorker: 64, isolateMaxIdle: 40 }).isolateMaxIdle, 40, "an explicit value wins");
  assert.equal(resolvePoolOptions({}).isolateShedAboveMb, 448);
  assert.equal(resolvePoolOptions({ workerMemoryMb: 1_000 }).isolateShedAboveMb, 875);
  assert.throws(() => resolvePoolOptions({ isolateShedAboveMb: 0 }), /isolateShedAboveMb/);
});

test("a worker past isolateShedAboveMb lets its oldest idle isolates go at the next heartbeat; below it they stay warm", KEPT_ONLY, async () => {
  // A few heartbeats in 300 ms: the worker's RSS (tens of MB) is over a 1 MB threshold at each.
  const reusedAfterABeat = (isolateShedAboveMb: number) => reusedAcrossPause({ heartbeatMs: 50, isolateShedAboveMb }, 300);
  assert.equal(await reusedAfterABeat(1), 0, "over the threshold: the idle isolate was disposed, the next run got a new one");
  assert.equal(await reusedAfterABeat(100_000), 1, "under it: the next run reused the warm isolate");
});

test("isolateMaxRuns: a user's isolate serves that many runs, then the next run starts in a new one", KEPT_ONLY, async () => {
  // Back to back, as a client sends them: a run that comes while the last one's isolate is being given back waits for it.
  const kept = createTestPool({ workers: 1, runsPerWorker: 1, isolateMaxRuns: 3 });
  try {
    const pattern: boolean[] = [];
    for (let i = 0; i < 7; i += 1) {
      const before = kept.stats().reusedIsolates;
      assertOk(await runTool(kept, "export default () => 1"));
      pattern.push(kept.stats().reusedIsolates > before);
    }
    assert.deepEqual(pattern, [false, true, true, false, true, true, false], "new, then reused twice, then new again");
  } finally {
    await kept.close();
  }
  assert.throws(() => createSandboxPool({ isolateMaxRuns: 0 }), /isolateMaxRuns/);
});

test("isolateIdleMs: a warm isolate left idle that long is disposed; one used again sooner is reused", KEPT_ONLY, async () => {
  const reusedAfter = (pauseMs: number) => reusedAcrossPause({ isolateIdleMs: 400 }, pauseMs);
  assert.equal(await reusedAfter(20), 1, "back within the idle time: the warm isolate served the run");
  assert.equal(await reusedAfter(1_200), 0, "idle past isolateIdleMs: the isolate was gone, the run got a new one");
  assert.throws(() => createSandboxPool({ isolateIdleMs: 1 }), /isolateIdleMs/);
});
