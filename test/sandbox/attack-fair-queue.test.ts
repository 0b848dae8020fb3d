/**
 * Attack family (issue 10, root cause 9): one user fills the sandbox. A flood of slow runs from
 * one user must not hold back another user's first run by more than about one run's time: a user
 * holds at most `userRunsInFlight` slots (default half the capacity), and waiting runs are served
 * round-robin by user, not first come first served.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { GuestUser, RunOutcome, SandboxPool } from "../../sandbox/index.ts";
import { assertOk, createReadyPool, runTool, startLoopbackServer, USER, type LoopbackServer, type RunOptions } from "./harness.ts";

const FLOODER: GuestUser = Object.freeze({ ...USER, id: "u-flood", name: "flood" });
const BOB: GuestUser = Object.freeze({ ...USER, id: "u-bob", name: "bob" });
const CAROL: GuestUser = Object.freeze({ ...USER, id: "u-carol", name: "carol" });
/** A slow run that costs no CPU: it waits on a loopback handler that answers after `?ms`. */
const SLOW = (ms: number) => `import { call } from "knot:plugin"; export default async () => call("slow", "wait", { ms: ${ms} })`;

let slowHandler: LoopbackServer;
before(async () => {
  slowHandler = await startLoopbackServer((_plugin, _fn, call) => {
    const ms = Number(new URL(call.url, "http://x").searchParams.get("params")?.match(/\d+/)?.[0] ?? 0);
    return { body: "slow", delayMs: ms };
  });
});
after(() => slowHandler.close());

const slow = (ms: number, user: GuestUser, pool: SandboxPool): Promise<RunOutcome> => {
  const options: RunOptions = { user, limits: { wallMs: 20_000, cpuMs: 5_000 }, loopback: slowHandler.target };
  return runTool(pool, SLOW(ms), options);
};

/** Counts how many runs of a backlog finished before `run` did: load-independent "how long it waited". */
function finishedBefore(backlog: Promise<RunOutcome>[], run: Promise<RunOutcome>): Promise<number> {
  let finished = 0;
  for (const other of backlog) void other.then(() => (finished += 1));
  return run.then((outcome) => (assertOk(outcome), finished));
}

test("by default one user cannot take every slot: a flood of 40 slow runs leaves room for bob's return 42", async () => {
  const pool = await createReadyPool({ workers: 1, runsPerWorker: 4 });
  try {
    const flood = Array.from({ length: 40 }, () => slow(200, FLOODER, pool));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(pool.stats().busy <= 2, `the flooder holds ${pool.stats().busy} of 4 slots`);
    const ahead = await finishedBefore(flood, runTool(pool, "export default () => 42", { user: BOB }));
    // First come first served: bob would wait for ~38 of the flood's runs.
    assert.ok(ahead <= 10, `${ahead} of the flood's runs finished before bob's return 42`);
    for (const outcome of await Promise.all(flood)) assertOk(outcome);
  } finally {
    await pool.close();
  }
});

test("waiting runs are served round-robin by user: a newcomer waits for at most one run", async () => {
  // Here each user may fill the worker: only the order of the queue protects bob.
  const pool = await createReadyPool({ workers: 1, runsPerWorker: 2, userRunsInFlight: 2 });
  try {
    const flood = Array.from({ length: 12 }, () => slow(300, FLOODER, pool));
    const carols = Array.from({ length: 4 }, () => slow(300, CAROL, pool));
    const floodDone = Promise.all(flood).then(() => Date.now());
    const carolDone = Promise.all(carols).then(() => Date.now());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const ahead = await finishedBefore([...flood, ...carols], runTool(pool, "export default () => 42", { user: BOB }));
    // First come first served: bob would wait for all 16; round-robin: one slot frees, bob is next.
    assert.ok(ahead <= 6, `${ahead} runs of the other users' backlogs finished before bob's`);
    for (const outcome of [...(await Promise.all(carols)), ...(await Promise.all(flood))]) assertOk(outcome);
    assert.ok((await carolDone) < (await floodDone), "carol's short backlog is not stuck behind the flood");
  } finally {
    await pool.close();
  }
});

test("userRunsInFlight is validated", async () => {
  const { createSandboxPool } = await import("../../sandbox/index.ts");
  assert.throws(() => createSandboxPool({ userRunsInFlight: 0 }), /userRunsInFlight must be an integer from 1/);
});
