/**
 * Attack family (issue 10, root cause 8): one user's run gets its worker killed — a stuck isolate
 * (`new Array(1e9).fill(0)` keeps spinning after dispose), a memory hoard over the worker budget,
 * a run that will not stop by its deadline or when cancelled — while another user's run shares
 * that worker. The other user's run is re-queued and completes; the culprit's own runs fail; and
 * no message any run receives names another run, user or tool.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { GuestUser, RunOutcome, SandboxPool } from "../../sandbox/index.ts";
import { MAX_REQUEUES } from "../../sandbox/host/worker-slot.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, assertOk, CALLING_LIMITS, createMarker, createReadyPool, makeJob, startLoopbackServer, USER, type Marker } from "./harness.ts";

const MALLORY: GuestUser = Object.freeze({ ...USER, id: "u-mallory", name: "mallory" });
const BOB: GuestUser = Object.freeze({ ...USER, id: "u-bob", name: "bob" });

let pool: SandboxPool;
let marker: Marker;
before(async () => {
  pool = await createReadyPool({ workers: 1, runsPerWorker: 4, userRunsInFlight: 4, heartbeatMs: 300 });
  marker = createMarker();
});
after(() => pool.close());

/** Every id and name a message could leak: run ids, user ids and names, tool filenames. */
const seen: string[] = [];

function start(source: string, user: GuestUser, limits: Record<string, number>, hooks: Record<string, unknown> = {}): Promise<RunOutcome> {
  const job = { ...makeJob(source, { user, limits }), filename: `tool:${user.name}_secret_tool` };
  seen.push(job.runId, user.id, user.name, job.filename);
  return pool.run(job, { resolveModule: () => null, ...hooks });
}

function assertNamesNobody(outcome: RunOutcome): void {
  if (outcome.ok) return;
  for (const word of seen) assert.ok(!outcome.error.message.includes(word), `"${outcome.error.message}" names ${word}`);
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}

// Bob's tool prints first, so the test knows his run was acknowledged (it may have had effects).
const BOB_SLOW = `console.log("started"); export default () => { const end = Date.now() + 1_200; while (Date.now() < end) {} return "bob's answer" }`;
const BOB_LIMITS = { ...ATTACK_LIMITS, cpuMs: 8_000, wallMs: 12_000 };
const STUCK = "export default () => new Array(1e9).fill(0).length";

async function bobBeside(attack: (bobStarted: Promise<void>) => Promise<RunOutcome[]>): Promise<void> {
  const restarts = pool.stats().restarts;
  let signalStarted!: () => void;
  const bobStarted = new Promise<void>((resolve) => (signalStarted = resolve));
  const bob = start(BOB_SLOW, BOB, BOB_LIMITS, { onEvent: () => signalStarted() });
  const culprits = await attack(bobStarted);
  await until(() => pool.stats().restarts > restarts, 10_000);
  assert.ok(pool.stats().restarts > restarts, "the attack cost its worker");
  const outcome = await bob;
  assertNamesNobody(outcome);
  assert.deepEqual(assertOk(outcome), { kind: "text", text: "bob's answer" }, "bob's run was re-queued, not failed");
  for (const culprit of culprits) {
    assert.equal(culprit.ok, false);
    assertNamesNobody(culprit);
  }
  await assertHostUnharmed(pool, marker);
}

test("a stuck isolate costs its worker, but another user's run on it is re-queued and completes", async () => {
  await bobBeside(async (bobStarted) => {
    await bobStarted;
    const spinner = start(STUCK, MALLORY, { ...ATTACK_LIMITS, heapMb: 32 });
    // Mallory's second run on the same worker is hers: it fails, and names nothing of the first.
    const second = start(`console.log("x"); await new Promise(() => {});`, MALLORY, BOB_LIMITS);
    return Promise.all([spinner, second]);
  });
});

test("a run lost again and again for others' runs is re-queued at most MAX_REQUEUES times, then fails: it cannot be bounced forever", async () => {
  // Long enough that each of Mallory's stuck isolates costs the worker while Bob's run is on it.
  const bobLong = `console.log("started"); export default () => { const end = Date.now() + 4_000; while (Date.now() < end) {} return "bob's answer" }`;
  let starts = 0;
  const bob = start(bobLong, BOB, BOB_LIMITS, { onEvent: () => void (starts += 1) });
  const culprits: Promise<RunOutcome>[] = [];
  for (let loss = 0; loss <= MAX_REQUEUES; loss += 1) {
    await until(() => starts > loss, 15_000);
    assert.equal(starts, loss + 1, `bob's run started again after loss ${loss}`);
    const restarts = pool.stats().restarts;
    culprits.push(start(STUCK, MALLORY, { ...ATTACK_LIMITS, heapMb: 32 }));
    await until(() => pool.stats().restarts > restarts, 10_000);
    assert.ok(pool.stats().restarts > restarts, `Mallory's stuck isolate ${loss + 1} cost its worker`);
  }
  const outcome = await bob;
  assertError(outcome, "WORKER_CRASHED", /lost during the run/);
  assertNamesNobody(outcome);
  assert.equal(starts, MAX_REQUEUES + 1, "run once, then re-queued MAX_REQUEUES times, and no more");
  for (const culprit of await Promise.all(culprits)) {
    assert.equal(culprit.ok, false);
    assertNamesNobody(culprit);
  }
  await assertHostUnharmed(pool, marker);
});

test("a run that cannot be cancelled costs its worker; the other user's run completes", async () => {
  await bobBeside(async (bobStarted) => {
    await bobStarted;
    const abort = new AbortController();
    let spinning!: () => void;
    const running = new Promise<void>((resolve) => (spinning = resolve));
    const culprit = start(`console.log("go"); export default () => new Array(1e9).fill(0).length`, MALLORY, { ...BOB_LIMITS, heapMb: 32 }, {
      signal: abort.signal,
      onEvent: () => spinning(),
    });
    await running;
    await new Promise((resolve) => setTimeout(resolve, 300)); // the fill has begun
    abort.abort();
    return [await culprit];
  });
});

test("a hoard over the worker's memory budget fails its own run only", async () => {
  const small = await createReadyPool({ workers: 1, runsPerWorker: 4, userRunsInFlight: 4, workerMemoryMb: 260, heartbeatMs: 300 });
  try {
    let bobStarted!: () => void;
    const started = new Promise<void>((resolve) => (bobStarted = resolve));
    const bobJob = { ...makeJob(BOB_SLOW, { user: BOB, limits: BOB_LIMITS }) };
    seen.push(bobJob.runId);
    const bob = small.run(bobJob, { resolveModule: () => null, onEvent: () => bobStarted() });
    await started;
    const hoardJob = makeJob("const hoard = new Uint8Array(200 * 1024 * 1024).fill(7); await new Promise(() => {});", {
      user: MALLORY,
      limits: { ...ATTACK_LIMITS, heapMb: 512, cpuMs: 5_000, wallMs: 10_000 },
    });
    seen.push(hoardJob.runId);
    const hoard = await small.run(hoardJob, { resolveModule: () => null });
    assertError(hoard, "MEMORY_LIMIT", /over its budget of 260 MB/);
    assertNamesNobody(hoard);
    const outcome = await bob;
    assertNamesNobody(outcome);
    assert.deepEqual(assertOk(outcome), { kind: "text", text: "bob's answer" });
    assert.equal(small.stats().restarts, 1);
  } finally {
    await small.close();
  }
});

test("a thrown value whose getter spins ends its own run with CPU_LIMIT; another user's run, its knot:plugin call in flight, completes with the call made once", async () => {
  // Found against a synchronous first evaluation (stop 24, reverted): isolated-vm copies a thrown
  // value after the evaluation, and on the worker's thread that copy ran outside every limit; the
  // worker was killed and the other run re-run, its call made twice.
  const server = await startLoopbackServer(() => ({ body: { slow: true }, delayMs: 600 }));
  const small = await createReadyPool({ workers: 1, runsPerWorker: 2, heartbeatMs: 500 });
  try {
    const source = `import { call } from "knot:plugin"; export default async () => ({ answer: await call("metrics", "slow", {}) });`;
    const bobRun = small.run(makeJob(source, { user: BOB, loopback: server.target, limits: CALLING_LIMITS }), { resolveModule: () => null });
    await new Promise((resolve) => setTimeout(resolve, 150)); // bob's call is out
    const getter = await small.run(makeJob("throw { get message() { for (;;) {} } }; export default () => 1;", { user: MALLORY, limits: { ...ATTACK_LIMITS, cpuMs: 200 } }), {
      resolveModule: () => null,
    });
    assertError(getter, "CPU_LIMIT");
    assert.deepEqual(assertOk(await bobRun), { kind: "json", value: { answer: { slow: true } } });
    assert.equal(server.calls.length, 1, "bob's call was made once");
    assert.equal(small.stats().restarts, 0, "the worker stayed");
  } finally {
    await small.close();
    await server.close();
  }
});

test("another user's run that has called a plugin is never run again when someone else's run costs the worker: it fails, its call made once", async () => {
  // Found by a probe: a one-line tool (a thrown Proxy whose every property spins: isolated-vm reads
  // them to copy the error, outside every limit, after catching the termination) kept its isolate
  // running past dispose, the worker was killed, and bob's run — re-queued though it had already
  // called a plugin — made its call again (a charge made twice), then again, then failed.
  const server = await startLoopbackServer(() => ({ body: { charged: true }, delayMs: 1_500 }));
  const small = await createReadyPool({ workers: 1, runsPerWorker: 2, heartbeatMs: 500 });
  try {
    const charge = `import { call } from "knot:plugin"; export default async () => ({ answer: await call("billing", "charge", {}) });`;
    const bobJob = makeJob(charge, { user: BOB, loopback: server.target, limits: { ...CALLING_LIMITS, wallMs: 10_000 } });
    seen.push(bobJob.runId);
    const bobRun = small.run(bobJob, { resolveModule: () => null });
    await until(() => server.calls.length === 1, 5_000); // bob's call is out
    const spinner = await small.run(makeJob(`throw new Proxy(new Error("p"), { get() { for (;;) {} } }); export default () => 1;`, { user: MALLORY, limits: { ...ATTACK_LIMITS, cpuMs: 200 } }), {
      resolveModule: () => null,
    });
    assertError(spinner, ["CPU_LIMIT", "WORKER_CRASHED"]);
    const bob = await bobRun;
    assertNamesNobody(bob);
    if (small.stats().restarts > 0) assertError(bob, "WORKER_CRASHED", /after it had called a plugin/);
    else assert.deepEqual(assertOk(bob), { kind: "json", value: { answer: { charged: true } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(server.calls.length, 1, "bob's charge was made once");
  } finally {
    await small.close();
    await server.close();
  }
});

test("another user's run that has had no effect outside its isolate is still re-queued and completes", async () => {
  await bobBeside(async (bobStarted) => {
    await bobStarted;
    return [await start(`throw new Proxy(new Error("p"), { get() { for (;;) {} } }); export default () => 1;`, MALLORY, { ...ATTACK_LIMITS, cpuMs: 200 })];
  });
});
