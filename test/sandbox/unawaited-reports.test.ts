/**
 * The guest does not wait for its reports (log lines, progress, coded errors, knot:plugin calls):
 * they reach the worker in the order they were made and before the run's verdict, across awaits
 * and from inside a call's answer; a call's refusal comes back through the guest's deliver.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunEvent, SandboxPool } from "../../sandbox/index.ts";
import { assertError, assertOk, CALLING_LIMITS, createReadyPool, runTool, startLoopbackServer, type LoopbackServer } from "./harness.ts";

let pool: SandboxPool;
let server: LoopbackServer;
before(async () => {
  pool = await createReadyPool();
  server = await startLoopbackServer(() => ({ body: { answered: true } }));
});
after(async () => {
  await pool.close();
  await server.close();
});

test("every log line and progress report arrives, in order, before the verdict, across awaits", async () => {
  const source = `import { call } from "knot:plugin";
import { log, progress } from "knot:tool";
export default async () => {
  for (let i = 0; i < 500; i++) console.log("before " + i);
  progress(1, 3);
  const answer = await call("metrics", "read");
  for (let i = 0; i < 500; i++) log("info", "after " + i);
  progress(2, 3);
  await Promise.resolve();
  progress(3, 3, "done");
  return JSON.stringify(answer);
};`;
  const events: RunEvent[] = [];
  const outcome = await runTool(pool, source, {
    loopback: server.target,
    limits: { ...CALLING_LIMITS, logBytes: 1_000_000 },
    hooks: { onEvent: (event) => void events.push(event) },
  });
  assert.deepEqual(assertOk(outcome), { kind: "text", text: '{"answered":true}' });
  const lines = outcome.log.map((line) => line.message);
  assert.deepEqual(lines, [...Array.from({ length: 500 }, (_, i) => `before ${i}`), ...Array.from({ length: 500 }, (_, i) => `after ${i}`)]);
  const progress = events.filter((event) => event.type === "progress");
  assert.deepEqual(progress.map((event) => event.done), [1, 2, 3], "progress in the order it was reported");
  // The stream of events keeps the tool's own order: the first progress comes after the 500th "before" line.
  const firstProgress = events.findIndex((event) => event.type === "progress");
  const logsBefore = events.slice(0, firstProgress).filter((event) => event.type === "log").length;
  assert.equal(logsBefore, 500);
});

test("an answer, a refusal and an answer again: each call gets its own, in turn", async () => {
  const source = `import { call } from "knot:plugin";
export default async () => {
  const codes = [];
  for (const fn of ["read", "missing", "read"]) {
    try { codes.push((await call("metrics", fn)).n) } catch (error) { codes.push(error.code) }
  }
  return codes.join(",");
};`;
  let n = 0;
  const numbered = await startLoopbackServer((_plugin, fn) => (fn === "missing" ? { status: 404 } : { body: { n: ++n } }));
  try {
    assert.deepEqual(assertOk(await runTool(pool, source, { loopback: numbered.target, limits: CALLING_LIMITS })), { kind: "text", text: "1,NOT_ADDRESSABLE,2" });
    assert.equal(numbered.calls.length, 3);
  } finally {
    await numbered.close();
  }
});

test("without a loopback the call is refused through deliver with LOOPBACK_FAILED", async () => {
  const source = `import { call } from "knot:plugin";
export default async () => { try { await call("metrics", "read") } catch (error) { return error.code + ": " + error.message } };`;
  const result = assertOk(await runTool(pool, source, { loopback: null, limits: CALLING_LIMITS }));
  assert.equal(result.kind, "text");
  assert.match((result as { text: string }).text, /^LOOPBACK_FAILED: .*not available/);
});

test("a coded error thrown at the top keeps its code after many (repeated) ones were made and caught", async () => {
  const source = `import { getInt } from "knot:tool";
for (let i = 0; i < 1_500; i++) { try { getInt("again") } catch {} }
getInt("missing");
export default () => "unreached";`;
  assertError(await runTool(pool, source, { limits: CALLING_LIMITS }), "INVALID_ARGUMENT", /missing/);
});
