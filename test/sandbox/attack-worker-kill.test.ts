/**
 * Attack family (and accident): a worker process dies or hangs mid-run. SIGKILL from outside, or a
 * stopped process that misses its heartbeats: the runs it held fail with WORKER_CRASHED, the pool
 * starts a replacement, and runs on the other worker — and new runs — succeed.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
before(async () => {
  pool = await createReadyPool({ workers: 2, runsPerWorker: 2, heartbeatMs: 300 });
  marker = createMarker();
});
after(() => pool.close());

/** Our sandbox worker processes, found through /proc (children of this test process). */
function workerPids(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, "utf8");
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (new RegExp(`^PPid:\\s+${process.pid}$`, "m").test(status) && cmdline.includes("sandbox/worker/main.ts")) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

// Each tool prints first, so the test knows the worker has it (acknowledged runs are never retried).
const BUSY = `console.log("started"); export default () => { const end = Date.now() + 1_500; while (Date.now() < end) {} return "finished" }`;
const HANG = `console.log("started"); await new Promise(() => {});`;
const LIMITS = { ...ATTACK_LIMITS, cpuMs: 5_000, wallMs: 6_000 };

test("SIGKILL of a worker mid-run fails only its run; the other worker's run and new runs succeed", async () => {
  const pids = workerPids();
  assert.equal(pids.length, 2, `found workers ${pids.join(",")}`);
  let started = 0;
  const hooks = { onEvent: () => void (started += 1) };
  const first = runTool(pool, BUSY, { limits: LIMITS, hooks });
  const second = runTool(pool, BUSY, { limits: LIMITS, hooks });
  await until(() => started === 2, 3_000);
  process.kill(pids[0] as number, "SIGKILL");
  const quick = await Promise.all([1, 2, 3].map(() => runTool(pool, 'export default () => "quick"')));
  for (const outcome of quick) assert.deepEqual(assertOk(outcome), { kind: "text", text: "quick" });
  const outcomes = await Promise.all([first, second]);
  const crashed = outcomes.filter((outcome) => !outcome.ok);
  assert.equal(crashed.length, 1, JSON.stringify(outcomes));
  assertError(crashed[0]!, "WORKER_CRASHED", /lost during the run/);
  assert.deepEqual(assertOk(outcomes.find((outcome) => outcome.ok)!), { kind: "text", text: "finished" });
  await until(() => pool.stats().workers === 2 && workerPids().length === 2, 8_000);
  assert.equal(pool.stats().restarts, 1);
  assert.ok(!workerPids().includes(pids[0] as number));
  await assertHostUnharmed(pool, marker);
});

test("a worker that stops answering (SIGSTOP) misses its heartbeats and is replaced", async () => {
  const restarts = pool.stats().restarts;
  const [victim] = workerPids();
  let started = 0;
  const hooks = { onEvent: () => void (started += 1) };
  const hanging = runTool(pool, HANG, { limits: { ...LIMITS, wallMs: 20_000 }, hooks });
  const other = runTool(pool, HANG, { limits: { ...LIMITS, wallMs: 20_000 }, hooks });
  await until(() => started === 2, 3_000);
  process.kill(victim as number, "SIGSTOP");
  const stoppedAt = Date.now();
  const settled = await Promise.race([hanging, other]);
  assertError(settled, "WORKER_CRASHED", /missed its heartbeats/);
  assert.ok(Date.now() - stoppedAt < 5_000, `noticed in ${Date.now() - stoppedAt} ms`);
  await until(() => pool.stats().restarts > restarts, 3_000);
  assert.ok(pool.stats().restarts > restarts);
  await assertHostUnharmed(pool, marker);
  await pool.close();
  const rest = await Promise.all([hanging, other]);
  assert.ok(rest.every((outcome) => !outcome.ok));
});
