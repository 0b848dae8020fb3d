// A run's first evaluation is made synchronously within a short slice (sandbox/worker/sync-slice.ts);
// one that runs out of it is thrown away and the run starts again asynchronously. Nothing the thrown
// away attempt did may be seen twice: not its log lines, not its knot:plugin calls.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { RunEvent, SandboxPool } from "../../sandbox/index.ts";
import { runInSlice } from "../../sandbox/host/worker-process.ts";
import { rememberOverrun, sliceFor, SYNC_SLICE_MS } from "../../sandbox/worker/sync-slice.ts";
import { ATTACK_LIMITS, assertError, assertOk, createReadyPool, createTestPool, ISOLATE_REUSE, makeJob, runTool, startLoopbackServer, USER, type LoopbackServer } from "./harness.ts";

let pool: SandboxPool;
let server: LoopbackServer;
before(async () => {
  pool = createTestPool({ workers: 1, runsPerWorker: 2 });
  server = await startLoopbackServer((_plugin, fn) => (fn === "slow" ? { body: { slow: true }, delayMs: 300 } : { body: { counted: true } }));
});
after(async () => {
  await pool.close();
  await server.close();
});

/** A user of its own per test: after an overrun a user gets no slice for a while (sync-slice.ts). */
const userNamed = (id: string) => ({ ...USER, id, name: id });
/** Top-level work that outlasts the slice several times over. */
const LONG = `{ const end = Date.now() + ${SYNC_SLICE_MS * 6}; while (Date.now() < end) {} }`;

test("a tool whose first evaluation outlasts the slice still answers once, and its log lines come once, in order", async () => {
  for (let round = 0; round < 2; round++) {
    const user = userNamed(`logger-${round}`);
    const lines: string[] = [];
    const source = `console.log("before ${round}"); ${LONG} console.log("after ${round}"); export default () => "done ${round}";`;
    const onEvent = (event: RunEvent) => void (event.type === "log" && lines.push(event.message));
    const outcome = await runTool(pool, source, { user, hooks: { onEvent } });
    assert.deepEqual(assertOk(outcome), { kind: "text", text: `done ${round}` });
    assert.deepEqual(lines, [`before ${round}`, `after ${round}`]);
    assert.deepEqual(outcome.log.map((line) => line.message), [`before ${round}`, `after ${round}`]);
  }
});

test("a knot:plugin call started before the slice ran out is made exactly once", async () => {
  const before = server.calls.length;
  const source = `import { call } from "knot:plugin";
    const pending = call("metrics", "count", {});
    ${LONG}
    export default async () => ({ answer: await pending });`;
  const outcome = await runTool(pool, source, { user: userNamed("caller"), loopback: server.target });
  assert.deepEqual(assertOk(outcome), { kind: "json", value: { answer: { counted: true } } });
  assert.equal(server.calls.length - before, 1, "one HTTP request for one call");
});

test("a tool that spins forever in its first evaluation still ends with CPU_LIMIT, and the worker stays", async () => {
  const restarts = pool.stats().restarts;
  const outcome = await runTool(pool, "while (true) {} export default () => 1;", { user: userNamed("spinner"), limits: { cpuMs: 150, wallMs: 2_000 } });
  assertError(outcome, "CPU_LIMIT");
  assert.equal(pool.stats().restarts, restarts);
  assert.deepEqual(assertOk(await runTool(pool, "export default () => 'after'")), { kind: "text", text: "after" });
});

test("the pool reads the run holding a worker's thread from its slice record: only a slice open long enough names one", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "knot-slice-")), "record");
  const now = 1_000_000;
  assert.equal(runInSlice(file, 0, now), undefined, "no record file");
  assert.equal(runInSlice(undefined, 0, now), undefined);
  fs.writeFileSync(file, `in ${now - 600} run-42\n`);
  assert.equal(runInSlice(file, 500, now), "run-42");
  assert.equal(runInSlice(file, 700, now), undefined, "a slice not open that long is not stuck");
  // A slice ends by writing over the start of the record: what is left of a longer line names nobody.
  fs.writeFileSync(file, `out\n${now - 600} run-42\n`);
  assert.equal(runInSlice(file, 0, now), undefined);
  fs.writeFileSync(file, `in ${now - 600} run-43`); // cut short (no newline): nobody
  assert.equal(runInSlice(file, 0, now), undefined);
});

const NO_SLICES = ISOLATE_REUSE === "never" ? 'isolate_reuse "never" makes no slices' : false;

test("attack: a slice stuck in a builtin holds the worker's thread, so another user's run misses its deadline; the blame is the stuck run's, and the other run is re-queued and completes", { skip: NO_SLICES }, async () => {
  // Heartbeats far apart, so the other run's deadline (wall + grace) comes due first.
  const slow = await createReadyPool({ workers: 1, runsPerWorker: 2, heartbeatMs: 2_000, deadlineGraceMs: 300 });
  try {
    const bob = { ...USER, id: "bob", name: "bob" };
    const mallory = { ...USER, id: "mallory", name: "mallory" };
    const bobRun = slow.run(
      makeJob(`import { call } from "knot:plugin"; export default async () => ({ answer: await call("metrics", "slow", {}) });`, {
        user: bob,
        loopback: server.target,
        limits: { ...ATTACK_LIMITS, wallMs: 1_000 },
      }),
      { resolveModule: () => null },
    );
    await new Promise((resolve) => setTimeout(resolve, 100)); // bob's call is out, its answer 300 ms away
    const restarts = slow.stats().restarts;
    const stuck = await slow.run(makeJob("export default () => new Array(1e9).fill(0).length", { user: mallory, limits: { ...ATTACK_LIMITS, heapMb: 32, wallMs: 5_000 } }), {
      resolveModule: () => null,
    });
    assert.equal(stuck.ok, false);
    assert.ok(slow.stats().restarts > restarts, "the stuck slice cost its worker");
    assert.deepEqual(assertOk(await bobRun), { kind: "json", value: { answer: { slow: true } } });
  } finally {
    await slow.close();
  }
});

test("attack: a user whose run outlasted its slice gets none for a while, whatever the tool (a flood of new-looking slow tools holds the worker's thread once)", () => {
  const job = (user: string, source: string) => makeJob(source, { user: { ...USER, id: user, name: user } });
  assert.equal(sliceFor(job("flooder", "a"), 0), SYNC_SLICE_MS);
  rememberOverrun(job("flooder", "a"));
  for (let run = 0; run < 100; run++) assert.equal(sliceFor(job("flooder", `v${run}`), 0), 0, `run ${run}`);
  assert.equal(sliceFor(job("flooder", "b"), 0), SYNC_SLICE_MS, "after 100 runs the user gets slices again");
  assert.equal(sliceFor(job("neighbour", "a"), 0), SYNC_SLICE_MS, "another user keeps theirs");
  assert.equal(sliceFor(makeJob("x", { limits: { cpuMs: 4 } }), 0), 4, "never longer than the CPU budget");
  assert.equal(sliceFor(makeJob("x", { limits: { wallMs: 1_000 } }), 999), 0, "nor the wall time left");
});
