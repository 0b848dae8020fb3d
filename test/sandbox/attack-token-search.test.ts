/**
 * Attack family: looking for the loopback token or any host reference. The token lives only in
 * the worker (it writes the Authorization header); nothing reachable from guest code — globals,
 * prototypes, errors, stacks, call answers, the log — may contain it, and the guest global holds
 * only standard ECMAScript names plus the console and the dynamic-import refusal.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { CALLING_LIMITS, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, startLoopbackServer, type LoopbackServer, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
let server: LoopbackServer;

before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
  server = await startLoopbackServer((_plugin, fn) => {
    if (fn === "denied") return { status: 403 };
    if (fn === "broken") return { status: 500, body: { error: { message: "boom" } } };
    return { body: { ok: true } };
  });
});
after(async () => {
  await pool.close();
  await server.close();
});

/** The token is given reversed, so the tool's own source text never contains it. */
const SEARCH = (reversedToken: string) => `
  import { call } from "knot:plugin";
  const TOKEN = ${JSON.stringify(reversedToken)}.split("").reverse().join("");
  function search(root, label) {
    const seen = new Set(); const hits = []; const queue = [[root, label]]; let visited = 0;
    while (queue.length > 0 && visited < 200000) {
      const [value, path] = queue.shift(); visited += 1;
      if (typeof value === "string") { if (value.includes(TOKEN) || value.includes("Bearer")) hits.push(path); continue; }
      if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) continue;
      seen.add(value);
      if (typeof value === "function") { try { const text = Function.prototype.toString.call(value); if (text.includes(TOKEN)) hits.push(path + ".toString()") } catch {} }
      let keys = []; try { keys = Reflect.ownKeys(value) } catch {}
      for (const key of keys) {
        let child; try { const d = Object.getOwnPropertyDescriptor(value, key); child = d && ("value" in d ? d.value : d.get?.call(value)) } catch { continue }
        queue.push([child, path + "." + String(key)]);
        if (typeof key === "string" && key.includes(TOKEN)) hits.push(path + "[key]");
      }
      try { queue.push([Object.getPrototypeOf(value), path + ".__proto__"]) } catch {}
    }
    return { hits, visited };
  }
  export default async () => {
    const collected = {};
    for (const fn of ["ok", "denied", "broken"]) {
      try { collected[fn] = await call("metrics", fn) } catch (e) { collected[fn] = { message: e.message, stack: e.stack, code: e.code, keys: Reflect.ownKeys(e).map(String) } }
    }
    const globals = search(globalThis, "globalThis");
    const answers = search(collected, "answers");
    return { globalHits: globals.hits, answerHits: answers.hits, visited: globals.visited, collected, names: Object.getOwnPropertyNames(globalThis).sort() };
  };`;

const STANDARD_GLOBALS = [
  "AggregateError", "Array", "ArrayBuffer", "AsyncDisposableStack", "BigInt", "BigInt64Array", "BigUint64Array", "Boolean", "DataView", "Date",
  "DisposableStack", "Error", "EvalError", "Float16Array", "Float32Array", "Float64Array", "Function", "Infinity",
  "Int16Array", "Int32Array", "Int8Array", "Iterator", "JSON", "Map", "Math", "NaN", "Number", "Object", "Promise", "Proxy",
  "RangeError", "ReferenceError", "Reflect", "RegExp", "Set", "String", "SuppressedError", "Symbol", "SyntaxError", "TypeError", "URIError",
  "Uint16Array", "Uint32Array", "Uint8Array", "Uint8ClampedArray", "WeakMap", "WeakRef", "WeakSet", "decodeURI", "decodeURIComponent",
  "encodeURI", "encodeURIComponent", "escape", "eval", "globalThis", "isFinite", "isNaN", "parseFloat", "parseInt", "undefined", "unescape",
];

test("the loopback token is nowhere reachable from guest code, and the global holds no host reference", async () => {
  const token = server.target.token;
  const outcome = await runTool(pool, SEARCH([...token].reverse().join("")), { loopback: server.target, limits: CALLING_LIMITS });
  const value = (assertOk(outcome) as { value: Record<string, unknown> }).value;
  assert.deepEqual(value.globalHits, []);
  assert.deepEqual(value.answerHits, []);
  assert.ok((value.visited as number) > 500, "the search walked the realm");
  const collected = value.collected as Record<string, { message?: string; stack?: string; code?: string; keys?: string[] }>;
  assert.deepEqual(collected.ok, { ok: true });
  assert.equal(collected.denied?.code, "PERMISSION_DENIED");
  assert.deepEqual(collected.denied?.keys?.sort(), ["code", "message", "stack"]);
  for (const failure of [collected.denied, collected.broken]) {
    assert.doesNotMatch(`${failure?.message}\n${failure?.stack}`, /\/work\/|node_modules|node:internal|127\.0\.0\.1|Bearer/);
  }
  const expected = [...STANDARD_GLOBALS, "__knot_dynamic_import", "console"].sort();
  assert.deepEqual(value.names, expected);
  assert.equal(JSON.stringify(outcome).includes(token), false, "nor in anything that left the sandbox");
  assert.ok(server.calls.every((call) => call.headers.authorization === `Bearer ${token}`), "while every request carried it");
  await assertHostUnharmed(pool, marker);
});

test("a connection failure reports a code, not the address or the token", async () => {
  const closed = await startLoopbackServer(() => ({ body: null }));
  const target = closed.target;
  await closed.close();
  const source = `import { call } from "knot:plugin"; export default async () => { try { await call("metrics", "x") } catch (e) { return [e.code, e.message, e.stack] } }`;
  const value = (assertOk(await runTool(pool, source, { loopback: target, limits: CALLING_LIMITS })) as { value: string[] }).value;
  assert.equal(value[0], "LOOPBACK_FAILED");
  assert.match(value[1] ?? "", /^metrics\/x: the loopback request failed/);
  assert.doesNotMatch(value.join("\n"), new RegExp(`${target.token}|127\\.0\\.0\\.1|/work/`));
  await assertHostUnharmed(pool, marker);
});
