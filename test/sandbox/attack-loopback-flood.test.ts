/**
 * Attack family: loopback and report floods. A run may make at most limits.loopbackCalls
 * knot:plugin calls; the next one ends the run with LOOPBACK_LIMIT (catching it does not help), in
 * sequence or all at once, and the server sees no more than the limit.
 * The guest does not wait for its reports (log lines, progress, coded errors, calls:
 * sandbox/worker/ivm.ts), so a tight loop could queue them in the worker faster than it handles
 * them, each a copy outside the isolate's heap limit. The guest runtime caps each kind as the
 * worker does: past the limit nothing more is sent, the run ends as its limits say, and the worker
 * (and its other users) is unharmed.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, startLoopbackServer, type LoopbackServer, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
let server: LoopbackServer;
before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
  server = await startLoopbackServer((_plugin, fn) => ({ body: { ok: true }, ...(fn === "flood" ? { delayMs: 50 } : {}) }));
});
after(async () => {
  await pool.close();
  await server.close();
});

const LIMITS = { ...ATTACK_LIMITS, loopbackCalls: 5, cpuMs: 1_000, wallMs: 5_000 };

test("calls in a loop stop at the limit with LOOPBACK_LIMIT", async () => {
  const before = server.calls.length;
  const outcome = await runTool(pool, `import { call } from "knot:plugin"; for (let i = 0; ; i++) { try { await call("metrics", "n" + i) } catch {} }`, { loopback: server.target, limits: LIMITS });
  assertError(outcome, "LOOPBACK_LIMIT", /more than 5 knot:plugin calls/);
  assert.equal(server.calls.length - before, 5);
  await assertHostUnharmed(pool, marker);
});

test("a burst of a thousand concurrent calls sends at most the limit", async () => {
  const before = server.calls.length;
  const source = `import { call } from "knot:plugin"; export default () => Promise.allSettled(Array.from({ length: 1000 }, (_, i) => call("metrics", "b" + i)))`;
  assertError(await runTool(pool, source, { loopback: server.target, limits: LIMITS }), "LOOPBACK_LIMIT");
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.ok(server.calls.length - before <= 5, `${server.calls.length - before} requests reached the server`);
  await assertHostUnharmed(pool, marker);
});

test("exactly the limit is fine", async () => {
  const source = `import { call } from "knot:plugin"; export default async () => (await Promise.all(Array.from({ length: 5 }, () => call("metrics", "ok")))).length`;
  assert.deepEqual(assertOk(await runTool(pool, source, { loopback: server.target, limits: LIMITS })), { kind: "json", value: 5 });
});

test("a synchronous loop of large calls past the limit: LOOPBACK_LIMIT, at most the limit sent, the worker kept", async () => {
  const restarts = pool.stats().restarts;
  const before = server.calls.length;
  const source = `import { call } from "knot:plugin";
const pad = "x".repeat(900_000);
export default () => { for (;;) call("metrics", "flood", { pad }).catch(() => {}) };`;
  assertError(await runTool(pool, source, { loopback: server.target, limits: LIMITS }), ["LOOPBACK_LIMIT", "CPU_LIMIT"]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.ok(server.calls.length - before <= 5, `${server.calls.length - before} requests reached the server`);
  assert.equal(pool.stats().restarts, restarts, "the worker was not replaced");
  await assertHostUnharmed(pool, marker);
});

test("a loop of caught coded errors and of log lines runs into its CPU limit; the worker is kept", async () => {
  const restarts = pool.stats().restarts;
  const sources = [
    `import { getInt } from "knot:tool"; export default () => { for (;;) { try { getInt("x".repeat(1_000)) } catch {} } };`,
    `const line = "y".repeat(60_000); export default () => { for (;;) console.log(line) };`,
    `import { progress } from "knot:tool"; const text = "z".repeat(1_000); export default () => { for (let i = 0; ; i++) progress(i, undefined, text) };`,
  ];
  for (const source of sources) assertError(await runTool(pool, source, { limits: LIMITS }), "CPU_LIMIT");
  assert.equal(pool.stats().restarts, restarts, "the worker was not replaced");
  await assertHostUnharmed(pool, marker);
});

test("floods of empty log lines from several runs at once: each ends by its own limit, the worker keeps up and is kept", async () => {
  const restarts = pool.stats().restarts;
  const flood = "export default () => { for (;;) console.log() };";
  const outcomes = await Promise.all(Array.from({ length: 4 }, () => runTool(pool, flood, { limits: { ...LIMITS, logBytes: 262_144 } })));
  // CPU_LIMIT, not the wall clock: a worker whose thread drowned in the queued reports could not poll the CPU.
  assert.deepEqual(outcomes.map((outcome) => (outcome.ok ? "ok" : outcome.error.code)), ["CPU_LIMIT", "CPU_LIMIT", "CPU_LIMIT", "CPU_LIMIT"]);
  // A worker that queued more than it could handle misses its heartbeats (or its memory budget) after the verdicts.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  assert.equal(pool.stats().restarts, restarts, "the worker was not replaced");
  await assertHostUnharmed(pool, marker);
});
