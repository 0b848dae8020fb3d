/**
 * Attack family: loopback floods. A run may make at most limits.loopbackCalls knot:plugin calls;
 * the next one ends the run with LOOPBACK_LIMIT (catching it does not help), in sequence or all at
 * once, and the server sees no more than the limit.
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
  server = await startLoopbackServer(() => ({ body: { ok: true } }));
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
