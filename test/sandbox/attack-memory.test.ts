/**
 * Attack family: memory bombs. The isolate's heap limit (limits.heapMb) stops big strings, arrays
 * and buffers with MEMORY_LIMIT; the worker's memory budget stops what escapes the heap limit; and
 * `new Array(1e9).fill(0)` — which neither the timeout nor dispose can interrupt — costs at most
 * its worker process, which is killed and replaced while the host goes on.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, createMarker, createReadyPool, runTool, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
});
after(() => pool.close());

const MEMORY_LIMITS = { ...ATTACK_LIMITS, heapMb: 16, cpuMs: 4_000, wallMs: 6_000 };

const BOMBS: Array<[string, string]> = [
  ["distinct big strings", `const keep = []; for (let i = 0;; i++) keep.push(String(i).padEnd(1 << 20, "ab").toUpperCase())`],
  ["growing arrays", `const keep = []; for (let i = 0;; i++) keep.push(new Array(1e4).fill(i + 0.5))`],
  ["many small objects", `const keep = []; for (let i = 0;; i++) keep.push({ i, name: "n" + i, list: [i] })`],
  ["array buffers kept alive", `const keep = []; for (;;) keep.push(new ArrayBuffer(1 << 20))`],
  ["one huge typed array", `export default () => new Uint8Array(2 ** 31).length`],
];

for (const [name, source] of BOMBS) {
  test(`${name} end with MEMORY_LIMIT`, async () => {
    const started = Date.now();
    assertError(await runTool(pool, source, { limits: MEMORY_LIMITS }), "MEMORY_LIMIT", /memory limit of 16 MB/);
    assert.ok(Date.now() - started < 6_000);
    await assertHostUnharmed(pool, marker);
  });
}

// Resizable ArrayBuffers: V8 reserves and commits their memory itself, past the allocator the heap
// limit counts (a probe held 320 MB under heapMb 64, and the worker's budget then blamed a neighbour).
const RESIZABLE: Array<[string, string]> = [
  ["resizable buffers grown by resize()", `export default () => { const keep = []; for (let i = 0; i < 8; i++) { const b = new ArrayBuffer(0, { maxByteLength: 32 << 20 }); b.resize(32 << 20); new Uint8Array(b).fill(1); keep.push(b) } return keep.length }`],
  ["resizable buffers made at full size", `export default () => { const keep = []; for (let i = 0; i < 8; i++) { const b = new ArrayBuffer(32 << 20, { maxByteLength: 32 << 20 }); new Uint8Array(b).fill(1); keep.push(b) } return keep.length }`],
  ["a maxByteLength getter that answers late", `export default () => { let n = 0; const o = { get maxByteLength() { return n++ ? 32 << 20 : undefined } }; const keep = []; for (let i = 0; i < 8; i++) { const b = new ArrayBuffer(0, o); b.resize?.(32 << 20); keep.push(b) } return keep.map((b) => b.byteLength).join() }`],
  ["buffers grown by transfer()", `export default () => { const keep = []; for (let i = 0; i < 8; i++) { const b = new ArrayBuffer(1).transfer(32 << 20); new Uint8Array(b).fill(1); keep.push(b) } return keep.length }`],
];

for (const [name, source] of RESIZABLE) {
  test(`${name} never hold more than the heap limit`, async () => {
    const outcome = await runTool(pool, source, { limits: { ...MEMORY_LIMITS, heapMb: 64 } });
    // Refused outright (a RangeError / TypeError the tool does not catch) or stopped at the limit; never 256 MB held.
    assertError(outcome, ["TOOL_ERROR", "MEMORY_LIMIT"]);
    await assertHostUnharmed(pool, marker);
  });
}

test("a plain ArrayBuffer still works as the language says", async () => {
  const source = `export default () => { const b = new ArrayBuffer(8, undefined); const c = new ArrayBuffer(8, {}); return [b.byteLength, c.resizable, b instanceof ArrayBuffer, new Uint8Array(4).buffer instanceof ArrayBuffer, ArrayBuffer.isView(new Uint8Array(1)), b.slice(2).byteLength, Object.getPrototypeOf(b) === ArrayBuffer.prototype, b.constructor === ArrayBuffer, ArrayBuffer.name, ArrayBuffer.length].join() }`;
  const outcome = await runTool(pool, source, { limits: MEMORY_LIMITS });
  assert.deepEqual(outcome.ok && outcome.result, { kind: "text", text: "8,false,true,true,true,6,true,true,ArrayBuffer,1" });
});

test("a tool that catches its failed allocation goes on normally", async () => {
  const outcome = await runTool(pool, "export default () => { try { new ArrayBuffer(2 ** 31) } catch (e) { return e.name } }", { limits: MEMORY_LIMITS });
  assert.deepEqual(outcome.ok && outcome.result, { kind: "text", text: "RangeError" });
});

test("new Array(1e9).fill(0) does not hang the host: its worker is replaced", async () => {
  const started = Date.now();
  const outcome = await runTool(pool, "export default () => new Array(1e9).fill(0).length", { limits: { ...ATTACK_LIMITS, heapMb: 32 } });
  assertError(outcome, ["WORKER_CRASHED", "MEMORY_LIMIT", "TOOL_TIMEOUT", "CPU_LIMIT"]);
  assert.ok(Date.now() - started < 4_000, `ended in ${Date.now() - started} ms`);
  // The isolate keeps spinning inside the builtin after dispose: the worker reports itself stuck
  // and the pool replaces the whole process.
  const deadline = Date.now() + 8_000;
  while (pool.stats().restarts === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(pool.stats().restarts, 1, "the stuck worker was replaced");
  await assertHostUnharmed(pool, marker);
});

test("a worker over its memory budget is killed and replaced; its run fails with MEMORY_LIMIT", async () => {
  const small = await createReadyPool({ workerMemoryMb: 220 });
  try {
    const hoard = "const hoard = new Uint8Array(180 * 1024 * 1024).fill(7); await new Promise(() => {});";
    const outcome = await runTool(small, hoard, { limits: { ...ATTACK_LIMITS, heapMb: 512, cpuMs: 5_000, wallMs: 8_000 } });
    assertError(outcome, "MEMORY_LIMIT", /over its budget of 220 MB/);
    assert.equal(small.stats().restarts, 1);
    await assertHostUnharmed(small, marker);
  } finally {
    await small.close();
  }
});
