/**
 * Attack family: prototype poisoning. User code may replace any intrinsic in its own realm; that
 * must neither corrupt what the worker receives (the guest runtime uses intrinsics captured
 * before user code), nor reach the host's realm, nor survive into the NEXT run (fresh isolate).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, CALLING_LIMITS, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, sentParams, startLoopbackServer, type LoopbackServer, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
let server: LoopbackServer;

before(async () => {
  pool = await createReadyPool({ workers: 1, runsPerWorker: 1 });
  marker = createMarker();
  server = await startLoopbackServer((_plugin, _fn, call) => ({ body: { echoed: sentParams(call) } }));
});
after(async () => {
  await pool.close();
  await server.close();
});

const POISON = `
  Object.prototype.polluted = "yes";
  Object.defineProperty(Object.prototype, "code", { set() { throw new Error("setter hijack") }, get() { return "FAKE" }, configurable: true });
  Array.prototype.push = function () { throw new Error("push hijack") };
  Array.prototype.join = () => "join hijack";
  Array.prototype.includes = () => true;
  String.prototype.slice = () => "slice hijack";
  String.prototype.trim = () => "trim hijack";
  RegExp.prototype.exec = () => null;
  JSON.stringify = () => '{"kind":"text","text":"forged"}';
  JSON.parse = () => ({ forged: true });
  Promise.prototype.then = function () { throw new Error("then hijack") };
  Map.prototype.get = () => undefined;
  WeakMap.prototype.get = () => "FAKE_CODE";
  Function.prototype.call = () => "call hijack";
  Function.prototype.apply = () => "apply hijack";
  Function.prototype.bind = () => () => "bind hijack";
  Reflect.apply = () => "reflect hijack";
  globalThis.Error = function FakeError() {};
`;

test("a poisoned realm cannot forge what the worker receives from knot:tool", async () => {
  const source = `import { returnObject, getInt, getList, log } from "knot:tool";
    ${POISON}
    export default () => { log("info", "still logging"); console.log("printed", 1); returnObject({ n: getInt("n"), list: getList("list") }) }`;
  const outcome = await runTool(pool, source, { params: { n: "7", list: ["a", "b"] }, limits: ATTACK_LIMITS });
  assert.deepEqual(assertOk(outcome), { kind: "json", value: { n: 7, list: ["a", "b"] } });
  assert.deepEqual(outcome.log, [{ level: "info", message: "still logging" }, { level: "info", message: "printed 1" }]);
  await assertHostUnharmed(pool, marker);
});

test("a poisoned realm still gets true loopback answers and real error codes", async () => {
  const source = `import { call } from "knot:plugin";
    const original = Promise.prototype.then;
    ${POISON}
    Promise.prototype.then = original; // keep await usable for the tool itself
    export default async () => { let failure; try { await call("Bad Name", "x") } catch (e) { failure = e instanceof TypeError } return { answer: await call("metrics", "echo", { a: 1 }), failure } }`;
  const outcome = await runTool(pool, source, { loopback: server.target, limits: CALLING_LIMITS });
  const result = assertOk(outcome) as { kind: string; value: { answer: unknown; failure: unknown } };
  assert.deepEqual(result.value, { answer: { echoed: { a: 1 } }, failure: true });
  await assertHostUnharmed(pool, marker);
});

test("a poisoned realm cannot change what ask() asks or what clientSupports() answers", async () => {
  const input = { __knot_input: { answers: {}, capabilities: ["elicitation"] } };
  const extra = `String.prototype.charCodeAt = () => 0; Number.prototype.toString = () => "hijack"; globalThis.String = () => "hijack";`;
  const asking = (poison: string) => `import { ask, clientSupports } from "knot:tool";
    ${poison}
    export default async () => { if (clientSupports("sampling")) return "sampling claimed"; await ask("Your name?", { type: "object" }); }`;
  const clean = assertOk(await runTool(pool, asking(""), { params: input, limits: ATTACK_LIMITS }));
  const poisoned = assertOk(await runTool(pool, asking(`${POISON} ${extra}`), { params: input, limits: ATTACK_LIMITS }));
  const questions = (clean as { value: { __knot_input_required: Record<string, { method: string; params: { message: string } }> } }).value.__knot_input_required;
  const [key] = Object.keys(questions);
  assert.match(key!, /^elicit-[0-9a-z]+$/);
  assert.deepEqual(questions[key!]!.method, "elicitation/create");
  assert.equal(questions[key!]!.params.message, "Your name?");
  assert.deepEqual(poisoned, clean, "the same question under the same key, and sampling not claimed");
  await assertHostUnharmed(pool, marker);
});

test("the next run on the same worker sees clean intrinsics", async () => {
  const poison = await runTool(pool, `${POISON} export default () => "poisoned"`, { limits: ATTACK_LIMITS });
  assert.equal(poison.ok, true);
  const check = `export default () => ({
    polluted: ({}).polluted ?? "absent",
    push: [].push.toString().includes("[native code]"),
    stringify: JSON.stringify.toString().includes("[native code]") && JSON.stringify({ a: [1] }),
    then: Promise.prototype.then.toString().includes("[native code]"),
    call: Function.prototype.call.toString().includes("[native code]"),
    error: typeof Error.captureStackTrace,
  })`;
  assert.deepEqual(assertOk(await runTool(pool, check, { limits: ATTACK_LIMITS })), {
    kind: "json",
    value: { polluted: "absent", push: true, stringify: '{"a":[1]}', then: true, call: true, error: "function" },
  });
  await assertHostUnharmed(pool, marker);
});

test("a toJSON planted on Object.prototype only changes the tool's own answer", async () => {
  const outcome = await runTool(pool, `Object.prototype.toJSON = () => "mine"; export default () => ({ a: 1 })`, { limits: ATTACK_LIMITS });
  assert.deepEqual(assertOk(outcome), { kind: "json", value: "mine" });
  await assertHostUnharmed(pool, marker);
});
