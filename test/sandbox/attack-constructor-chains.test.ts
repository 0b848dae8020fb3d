/**
 * Attack family: constructor chains. Reaching `Function` inside the isolate is expected (it is the
 * isolate's own); reaching the host's `process` or `require` — through errors, stacks, host-call
 * results, the knot:* functions or the request — must fail.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, CALLING_LIMITS, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, startLoopbackServer, type LoopbackServer, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
let server: LoopbackServer;

before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
  server = await startLoopbackServer(() => ({ body: { rows: [1, 2] } }));
});
after(async () => {
  await pool.close();
  await server.close();
});

/** Every probe tries to use what it reached to write the marker; it reports what it reached. */
const probes = (file: string) => `
  import * as tool from "knot:tool";
  import { user } from "knot:identity";
  import { call } from "knot:plugin";
  const MARKER = ${JSON.stringify(file)};
  const report = {};
  const use = (label, reached) => {
    report[label] = reached === undefined || reached === null ? "nothing" : typeof reached;
    const fs = reached?.mainModule?.require?.("fs") ?? reached?.getBuiltinModule?.("fs") ?? reached?.("fs");
    fs?.writeFileSync?.(MARKER, label);
  };
  const probe = (label, get) => { try { use(label, get()) } catch (e) { report[label] = "threw " + e?.name } };
  const viaFunction = (fn) => fn.constructor.constructor("return typeof process === 'object' ? process : typeof require === 'function' ? require : undefined")();
  export default async (request) => {
    probe("this", function () { return this.constructor.constructor("return process")() });
    probe("global-this", () => Function("return this")().process);
    probe("arrow", () => viaFunction(() => 0));
    probe("error", () => { try { null.x } catch (e) { return viaFunction(e) } });
    probe("knot-tool", () => viaFunction(tool.getString));
    probe("identity", () => viaFunction(user().hasPermission));
    probe("console", () => viaFunction(console.log));
    probe("request", () => viaFunction(request));
    probe("import-meta", () => viaFunction(import.meta));
    probe("globals", () => globalThis.process ?? globalThis.require ?? globalThis.module ?? globalThis.Buffer ?? globalThis.global);
    const pending = call("metrics", "rows"); pending.catch(() => {});
    probe("call-promise", () => viaFunction(pending));
    const rows = await pending;
    probe("call-result", () => viaFunction(rows));
    try { await call("nope/", "x") } catch (e) { probe("call-error", () => viaFunction(e)) }
    try { tool.getInt() } catch (e) { probe("arg-error", () => viaFunction(e)) }
    // stack frames: what can a CallSite hand out?
    Error.prepareStackTrace = (_error, frames) => frames;
    const frames = new Error("x").stack;
    frames.forEach((frame, i) => {
      probe("frame-this-" + i, () => viaFunction(frame.getThis?.() ?? (() => 0)));
      probe("frame-fn-" + i, () => viaFunction(frame.getFunction?.() ?? (() => 0)));
    });
    Error.prepareStackTrace = undefined;
    return report;
  };`;

test("constructor chains reach only the isolate's own Function: no process, no require", async () => {
  const outcome = await runTool(pool, probes(marker.file), { loopback: server.target, limits: CALLING_LIMITS });
  const report = (assertOk(outcome) as { value: Record<string, string> }).value;
  assert.ok(Object.keys(report).length >= 15, JSON.stringify(report));
  for (const [label, reached] of Object.entries(report)) {
    assert.match(reached, /^(nothing|threw \w+)$/, `${label} reached ${reached}`);
  }
  assert.equal(report.this, "threw TypeError", "module code is strict: `this` is undefined");
  assert.equal(report["global-this"], "nothing");
  await assertHostUnharmed(pool, marker);
});

test("a thenable planted on Object.prototype runs during a host-call answer, still inside the isolate", async () => {
  const source = `import { call } from "knot:plugin";
    const seen = [];
    Object.prototype.then = function (resolve) {
      delete Object.prototype.then;
      Error.prepareStackTrace = (_e, frames) => frames.map((f) => [typeof f.getThis(), typeof f.getFunction()]);
      seen.push(new Error("probe").stack);
      Error.prepareStackTrace = undefined;
      try { seen.push(typeof this.constructor.constructor("return process")()) } catch (e) { seen.push(e.name) }
      resolve("hijacked");
    };
    export default async () => { const answer = await call("metrics", "rows"); return { answer, seen } }`;
  const value = (assertOk(await runTool(pool, source, { loopback: server.target, limits: CALLING_LIMITS })) as { value: { answer: unknown; seen: unknown[] } }).value;
  assert.equal(value.answer, "hijacked", "the user's own thenable ran, as it would in any JS realm");
  assert.equal(value.seen.at(-1), "ReferenceError", "but `process` does not exist in the isolate");
  await assertHostUnharmed(pool, marker);
});

test("an attempt that throws from deep inside a chain fails as TOOL_ERROR with no host detail", async () => {
  const outcome = await runTool(pool, `export default () => (() => 0).constructor.constructor("return process.mainModule.require('fs')")()`, { limits: ATTACK_LIMITS });
  assert.equal(outcome.ok, false);
  assert.deepEqual(outcome.ok ? undefined : outcome.error, { code: "TOOL_ERROR", message: "process is not defined" });
  await assertHostUnharmed(pool, marker);
});
