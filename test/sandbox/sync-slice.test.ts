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
import { SYNC_SLICE_MS } from "../../sandbox/worker/sync-slice.ts";
import { assertError, assertOk, createTestPool, runTool, startLoopbackServer, type LoopbackServer } from "./harness.ts";

let pool: SandboxPool;
let server: LoopbackServer;
before(async () => {
  pool = createTestPool({ workers: 1, runsPerWorker: 2 });
  server = await startLoopbackServer(() => ({ body: { counted: true } }));
});
after(async () => {
  await pool.close();
  await server.close();
});

/** Top-level work that outlasts the slice several times over. */
const LONG = `{ const end = Date.now() + ${SYNC_SLICE_MS * 6}; while (Date.now() < end) {} }`;

test("a tool whose first evaluation outlasts the slice still answers once, and its log lines come once, in order", async () => {
  for (let round = 0; round < 2; round++) {
    const lines: string[] = [];
    const source = `console.log("before ${round}"); ${LONG} console.log("after ${round}"); export default () => "done ${round}";`;
    const onEvent = (event: RunEvent) => void (event.type === "log" && lines.push(event.message));
    const outcome = await runTool(pool, source, { hooks: { onEvent } });
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
  const outcome = await runTool(pool, source, { loopback: server.target });
  assert.deepEqual(assertOk(outcome), { kind: "json", value: { answer: { counted: true } } });
  assert.equal(server.calls.length - before, 1, "one HTTP request for one call");
});

test("a tool that spins forever in its first evaluation still ends with CPU_LIMIT, and the worker stays", async () => {
  const restarts = pool.stats().restarts;
  const outcome = await runTool(pool, "while (true) {} export default () => 1;", { limits: { cpuMs: 150, wallMs: 2_000 } });
  assertError(outcome, "CPU_LIMIT");
  assert.equal(pool.stats().restarts, restarts);
  assert.deepEqual(assertOk(await runTool(pool, "export default () => 'after'")), { kind: "text", text: "after" });
});

test("the pool reads the run holding a worker's thread from its slice record, and only an open slice names one", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "knot-slice-")), "record");
  assert.equal(runInSlice(file), undefined, "no record file");
  assert.equal(runInSlice(undefined), undefined);
  fs.writeFileSync(file, "in run-42\n");
  assert.equal(runInSlice(file), "run-42");
  // A slice ends by writing over the start of the record: what is left of a longer id names nobody.
  fs.writeFileSync(file, "out\nun-42\n");
  assert.equal(runInSlice(file), undefined);
  fs.writeFileSync(file, "in run-43"); // cut short (no newline): nobody
  assert.equal(runInSlice(file), undefined);
});
