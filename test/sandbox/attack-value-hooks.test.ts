/**
 * Attack family: values with behaviour — proxies, getters, thenables, toJSON / valueOf /
 * Symbol.toPrimitive — returned from a tool or passed to host calls. Whatever they run, they run
 * inside the isolate (serialisation happens in the guest); only strings reach the worker.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import {
  ATTACK_LIMITS,
  CALLING_LIMITS,
  assertError,
  assertHostUnharmed,
  assertOk,
  createMarker,
  createReadyPool,
  runTool,
  sentParams,
  startLoopbackServer,
  type LoopbackServer,
  type Marker,
} from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
let server: LoopbackServer;

before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
  server = await startLoopbackServer((_plugin, _fn, call) => ({ body: { got: sentParams(call) } }));
});
after(async () => {
  await pool.close();
  await server.close();
});

const ESCAPE = (file: string) => `(() => { const p = globalThis.process; p?.mainModule?.require("fs").writeFileSync(${JSON.stringify(file)}, "x"); return typeof p })()`;

test("returned proxies, getters and toJSON hooks are serialised in the guest", async () => {
  const cases: Array<[string, unknown]> = [
    [`new Proxy({}, { ownKeys: () => ["a"], getOwnPropertyDescriptor: () => ({ value: ${ESCAPE(marker.file)}, enumerable: true, configurable: true }), get: () => ${ESCAPE(marker.file)} })`, { a: "undefined" }],
    [`({ get secret() { return ${ESCAPE(marker.file)} } })`, { secret: "undefined" }],
    [`({ toJSON() { return { via: ${ESCAPE(marker.file)} } } })`, { via: "undefined" }],
    [`({ valueOf() { throw new Error("x") }, [Symbol.toPrimitive]() { throw new Error("y") }, plain: 1 })`, { plain: 1 }],
  ];
  for (const [value, expected] of cases) {
    const outcome = await runTool(pool, `export default () => ${value}`, { limits: ATTACK_LIMITS });
    assert.deepEqual(assertOk(outcome), { kind: "json", value: expected });
  }
  await assertHostUnharmed(pool, marker);
});

test("hooks that throw or revoke fail the run as TOOL_ERROR", async () => {
  const cases: Array<[string, RegExp]> = [
    [`({ get boom() { throw new Error("getter says no") } })`, /not JSON-serialisable/],
    [`({ toJSON() { throw new Error("toJSON says no") } })`, /not JSON-serialisable/],
    [`(() => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy })()`, /revoked/],
  ];
  for (const [value, message] of cases) {
    assertError(await runTool(pool, `export default () => ${value}`, { limits: ATTACK_LIMITS }), "TOOL_ERROR", message);
  }
  await assertHostUnharmed(pool, marker);
});

test("a returned thenable is awaited in the guest; one that never settles times out", async () => {
  const settled = await runTool(pool, `export default () => ({ then(resolve) { resolve({ from: "thenable", escape: ${ESCAPE(marker.file)} }) } })`, { limits: ATTACK_LIMITS });
  assert.deepEqual(assertOk(settled), { kind: "json", value: { from: "thenable", escape: "undefined" } });
  const started = Date.now();
  const hanging = await runTool(pool, `export default () => ({ then() {} })`, { limits: ATTACK_LIMITS });
  assertError(hanging, "TOOL_TIMEOUT");
  assert.ok(Date.now() - started < 3_000);
  await assertHostUnharmed(pool, marker);
});

test("arguments to host calls with hooks are checked in the guest and in the worker", async () => {
  const source = `import { call } from "knot:plugin"; import { log, progress, returnString, getString } from "knot:tool";
    export default async () => {
      const out = {};
      const tryIt = async (label, fn) => { try { out[label] = await fn() } catch (e) { out[label] = e.code ?? e.name } };
      await tryIt("name-object", () => call({ toString: () => "metrics" }, "x"));
      await tryIt("name-proxy", () => call(new Proxy({}, { get: () => () => "metrics" }), "x"));
      await tryIt("params-getter", () => call("metrics", "echo", { get a() { return ${ESCAPE(marker.file)} } }));
      await tryIt("params-toJSON", () => call("metrics", "echo", { toJSON: () => ({ swapped: true }) }));
      await tryIt("params-proxy", () => call("metrics", "echo", new Proxy({}, { ownKeys: () => { throw new Error("no keys") } })));
      await tryIt("method-primitive", () => call("metrics", "echo", {}, { method: { [Symbol.toPrimitive]: () => "GET" } }));
      await tryIt("progress-valueOf", () => progress({ valueOf: () => 5 }));
      await tryIt("log-object", () => { log("info", { toString: () => "logged via toString" }); return "ok" });
      await tryIt("default-primitive", () => getString("missing", { [Symbol.toPrimitive]: () => "x" }));
      await tryIt("return-object", () => returnString({ toString: () => "forged" }));
      return out;
    }`;
  const outcome = await runTool(pool, source, { loopback: server.target, limits: CALLING_LIMITS });
  assert.deepEqual(assertOk(outcome), {
    kind: "json",
    value: {
      "name-object": "TypeError",
      "name-proxy": "TypeError",
      "params-getter": { got: { a: "undefined" } },
      "params-toJSON": { got: { swapped: true } },
      "params-proxy": "TypeError",
      "method-primitive": "TypeError",
      "progress-valueOf": "TOOL_ERROR", // refused as in a plugin (sandbox/guest/output-rules.ts)
      "log-object": "ok",
      "default-primitive": "INVALID_ARGUMENT",
      "return-object": "TOOL_ERROR",
    },
  });
  assert.deepEqual(outcome.log, [{ level: "info", message: "logged via toString" }]);
  await assertHostUnharmed(pool, marker);
});
