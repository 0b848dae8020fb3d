/**
 * Attack family: burning time. Sync loops, async loops, microtask floods and catastrophic regular
 * expressions trip the CPU budget (isolate.cpuTime, polled) — or the wall deadline first on a
 * crowded machine; a promise that never settles trips the wall deadline. Each ends within a bound,
 * and the worker goes on serving. One case with a long wall deadline proves the CPU budget alone.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, createMarker, createReadyPool, runTool, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
before(async () => {
  pool = await createReadyPool({ workers: 1, runsPerWorker: 4 });
  marker = createMarker();
});
after(() => pool.close());

const CASES: Array<[string, string]> = [
  ["infinite sync loop at top level", "for (;;) {}"],
  ["infinite sync loop in the handler", "export default () => { while (true) {} }"],
  ["infinite async loop", "export default async () => { for (;;) await null }"],
  ["microtask flood", "export default () => { const spin = () => Promise.resolve().then(spin); spin(); return new Promise(() => {}) }"],
  ["catastrophic regexp", 'export default () => /^(a+)+$/.test("a".repeat(40) + "b")'],
  ["loop inside a getter read while serialising", "export default () => ({ get x() { for (;;) {} } })"],
  ["loop inside console formatting", "console.log({ toJSON() { for (;;) {} } })"],
];

for (const [name, source] of CASES) {
  test(`${name} is stopped`, async () => {
    const started = Date.now();
    assertError(await runTool(pool, source, { limits: ATTACK_LIMITS }), ["CPU_LIMIT", "TOOL_TIMEOUT"]);
    assert.ok(Date.now() - started < 3_000, `stopped in ${Date.now() - started} ms`);
    await assertHostUnharmed(pool, marker);
  });
}

test("the CPU budget alone stops a spin, long before a far wall deadline", async () => {
  const started = Date.now();
  assertError(await runTool(pool, "for (;;) {}", { limits: { ...ATTACK_LIMITS, cpuMs: 200, wallMs: 20_000 } }), "CPU_LIMIT", /more than 200 ms of CPU/);
  assert.ok(Date.now() - started < 10_000, `stopped in ${Date.now() - started} ms`);
  await assertHostUnharmed(pool, marker);
});

test("a promise that never settles is stopped by the wall deadline", async () => {
  const started = Date.now();
  assertError(await runTool(pool, "await new Promise(() => {});", { limits: ATTACK_LIMITS }), "TOOL_TIMEOUT", /within 1000 ms/);
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 900 && elapsed < 4_000, `stopped in ${elapsed} ms`);
  await assertHostUnharmed(pool, marker);
});

test("four spinning runs at once on one worker are all stopped and the worker stays", async () => {
  const outcomes = await Promise.all(Array.from({ length: 4 }, () => runTool(pool, "for (;;) {}", { limits: ATTACK_LIMITS })));
  for (const outcome of outcomes) assertError(outcome, ["CPU_LIMIT", "TOOL_TIMEOUT"]);
  await assertHostUnharmed(pool, marker);
  assert.equal(pool.stats().restarts, 0, "stopping isolates did not need a worker restart");
});
