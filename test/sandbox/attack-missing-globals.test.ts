/**
 * Attack family: dangerous globals. WebAssembly (memory outside the heap limit), SharedArrayBuffer
 * and Atomics (shared memory, precise timers) are removed before user code runs, cannot be
 * recovered through another path, and the worker's bindings are gone from the global.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
});
after(() => pool.close());

test("WebAssembly, SharedArrayBuffer and Atomics are absent, by every route we know", async () => {
  const source = `export default () => ({
    typeofs: [typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics],
    onGlobal: ["WebAssembly", "SharedArrayBuffer", "Atomics"].filter((name) => name in globalThis || Reflect.ownKeys(globalThis).includes(name)),
    viaFunction: Function("return [typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics].join()")(),
    viaEval: (0, eval)("typeof WebAssembly"),
    growable: (() => { try { const b = new ArrayBuffer(8, { maxByteLength: 16 }); return typeof b.constructor === "function" && b.constructor !== ArrayBuffer ? "other" : "ArrayBuffer" } catch (e) { return e.name } })(),
    bindings: Reflect.ownKeys(globalThis).map(String).filter((name) => name.startsWith("__knot")),
    setTimeout: typeof setTimeout, process: typeof process, require: typeof require, fetch: typeof fetch,
  })`;
  assert.deepEqual(assertOk(await runTool(pool, source, { limits: ATTACK_LIMITS })), {
    kind: "json",
    value: {
      typeofs: ["undefined", "undefined", "undefined"],
      onGlobal: [],
      viaFunction: "undefined,undefined,undefined",
      viaEval: "undefined",
      growable: "RangeError", // resizable buffers are refused too (their memory escapes the heap limit: attack-memory.test.ts)
      bindings: ["__knot_dynamic_import"],
      setTimeout: "undefined",
      process: "undefined",
      require: "undefined",
      fetch: "undefined",
    },
  });
  await assertHostUnharmed(pool, marker);
});

test("using them is a plain TOOL_ERROR (ReferenceError), and the refusal function cannot be replaced", async () => {
  assertError(await runTool(pool, "export default () => new WebAssembly.Memory({ initial: 1 })", { limits: ATTACK_LIMITS }), "TOOL_ERROR", /WebAssembly is not defined/);
  assertError(await runTool(pool, "export default () => new SharedArrayBuffer(8)", { limits: ATTACK_LIMITS }), "TOOL_ERROR", /SharedArrayBuffer is not defined/);
  const replace = `export default async () => { "use strict"; try { globalThis.__knot_dynamic_import = () => Promise.resolve({}) } catch (e) { return [e.name, await import("fs").catch((x) => x.code)] } }`;
  assert.deepEqual(assertOk(await runTool(pool, replace, { limits: ATTACK_LIMITS })), { kind: "json", value: ["TypeError", "MODULE_NOT_ALLOWED"] });
  await assertHostUnharmed(pool, marker);
});

test("a tool importing every knot:* module finds nothing of the worker's on the global", async () => {
  const source = `import { user } from "knot:identity";
    import { call } from "knot:plugin";
    import { getString } from "knot:tool";
    export default () => ({
      bindings: Reflect.ownKeys(globalThis).map(String).filter((name) => name.startsWith("__knot")),
      kinds: [typeof user, typeof call, typeof getString],
      viaFunction: Function("return typeof __knot_guest")(),
    })`;
  for (let i = 0; i < 3; i += 1) {
    assert.deepEqual(assertOk(await runTool(pool, source, { limits: ATTACK_LIMITS })), {
      kind: "json",
      value: { bindings: ["__knot_dynamic_import"], kinds: ["function", "function", "function"], viaFunction: "undefined" },
    });
  }
  await assertHostUnharmed(pool, marker);
});

test("Intl is absent (its ICU objects live outside the heap limit), and locale formatting still works, in the default locale", async () => {
  // 80,000 kept Intl.Segmenters held ~1.2 GB of worker memory under a 64 MB heap limit (and the
  // worker's memory budget then blamed whichever isolate was busy).
  const source = `export default () => ({
    typeofIntl: typeof Intl,
    onGlobal: "Intl" in globalThis,
    viaFunction: Function("return typeof Intl")(),
    hoard: (() => { try { const keep = []; for (let i = 0; i < 80000; i++) keep.push(new Intl.Segmenter("en")); return keep.length } catch (e) { return e.name } })(),
    number: (1234.5).toLocaleString("de-DE") === (1234.5).toLocaleString(),
    date: new Date(Date.UTC(2026, 0, 2, 12)).toLocaleDateString("en-GB", { timeZone: "UTC" }) === new Date(Date.UTC(2026, 0, 2, 12)).toLocaleDateString(),
    compare: "a".localeCompare("b"),
  })`;
  assert.deepEqual(assertOk(await runTool(pool, source, { limits: ATTACK_LIMITS })), {
    kind: "json",
    value: { typeofIntl: "undefined", onGlobal: false, viaFunction: "undefined", hoard: "ReferenceError", number: true, date: true, compare: -1 },
  });
  await assertHostUnharmed(pool, marker);
});
