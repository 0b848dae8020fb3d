/**
 * Attack family (issue 13): state that outlives a run. With `isolateReuse: "user"` a user's runs
 * share a warm isolate, each in a fresh context. A first run plants state everywhere it can reach
 * — globals, prototypes, intrinsics, the Symbol registry, the knot:* module namespaces,
 * Error.prepareStackTrace, pending promises and loopback calls — and a second run of the same user
 * on the same worker looks for it. Nothing may be found, in either isolate mode; a run that trips a
 * limit or leaves work pending costs its isolate. Another user never shares the isolate at all, and
 * neither does another tool's code (sandbox/worker/home-owner.ts): so planter and probe are steps of
 * one tool here (asSteps), or they would never meet in one isolate.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { GuestUser, SandboxPool } from "../../sandbox/index.ts";
import {
  ATTACK_LIMITS,
  assertError,
  assertOk,
  createReadyPool,
  ISOLATE_REUSE,
  runTool,
  startLoopbackServer,
  USER,
  type LoopbackServer,
} from "./harness.ts";

const BOB: GuestUser = Object.freeze({ ...USER, id: "u-bob", name: "bob" });

let pool: SandboxPool;
let slow: LoopbackServer;
before(async () => {
  // One worker, one run at a time: consecutive runs of a user land on the same worker.
  pool = await createReadyPool({ workers: 1, runsPerWorker: 1 });
  slow = await startLoopbackServer(() => ({ body: "late", delayMs: 300 }));
});
after(async () => {
  await pool.close();
  await slow.close();
});

const PLANT = `
import * as tool from "knot:tool";
import * as identity from "knot:identity";
import * as plugin from "knot:plugin";
globalThis.planted = "global";
Object.defineProperty(globalThis, "hidden", { value: "hidden", enumerable: false });
Object.prototype.polluted = "object-proto";
Array.prototype.extra = "array-proto";
Function.prototype.fnExtra = "function-proto";
String.prototype.trim = () => "hijacked trim";
JSON.parse = () => "hijacked JSON.parse";
Math.random = () => 4;
Promise.prototype.then = function () { return "hijacked then" };
Error.prepareStackTrace = () => "hijacked stack";
Error.stackTraceLimit = 0;
Symbol.for("knot.planted").description;
globalThis[Symbol.for("knot.planted")] = "symbol-keyed";
try { tool.planted = 1 } catch {}
try { Object.defineProperty(identity, "planted", { value: 1 }) } catch {}
try { Object.getPrototypeOf(plugin.call).planted = "via namespace" } catch {}
try { Object.setPrototypeOf(tool, { planted: "namespace proto" }) } catch {}
"x".constructor.prototype.shout = "string-proto";
RegExp("(planted)").exec("planted");
new Promise(() => {});
(async () => { for (;;) await new Promise(() => {}) })();
export default () => "planted";
`;

const PROBE = `
import * as tool from "knot:tool";
import * as plugin from "knot:plugin";
const found = [];
const check = (name, value) => { if (value !== undefined && value !== false) found.push(name + "=" + String(value)) };
check("global", globalThis.planted);
check("hidden", globalThis.hidden);
check("object-proto", ({}).polluted);
check("array-proto", [].extra);
check("function-proto", (() => 1).fnExtra);
check("trim", " a ".trim() !== "a" && " a ".trim());
check("JSON.parse", JSON.parse("1") !== 1 && JSON.parse("1"));
check("Math.random", Math.random() >= 1 && Math.random());
check("then", typeof Promise.resolve(1).then(() => 1) === "string" && "hijacked");
check("prepareStackTrace", Error.prepareStackTrace);
check("stackTraceLimit", Error.stackTraceLimit === 0 && "0");
check("symbol", globalThis[Symbol.for("knot.planted")]);
check("tool namespace", tool.planted);
check("plugin proto", Object.getPrototypeOf(plugin.call).planted);
check("string-proto", "".shout);
check("RegExp.$1", RegExp.$1 === "planted" && RegExp.$1);
check("stack", typeof new Error("x").stack === "string" && new Error("x").stack.includes("hijacked") && "hijacked");
export default () => found;
`;

/** The planter without its answer, for runs that end another way. */
const PLANT_BODY = PLANT.replace('export default () => "planted";', "");
assert.notEqual(PLANT_BODY, PLANT, "the planter's default export was taken out");

/**
 * One tool made of several modules: each run evaluates the one its `step` argument names (imports
 * hoisted, each module's `export default` becoming the handler). A warm isolate serves one tool's
 * code only, so this is how a planter and its probe can meet in one isolate.
 */
function asSteps(modules: Record<string, string>): string {
  const imports = new Set<string>(['import { getString as stepOf } from "knot:tool";']);
  const blocks: string[] = [];
  for (const [name, source] of Object.entries(modules)) {
    const body = source
      .split("\n")
      .map((line) => line.replace(/^\s*(import [^;]*;)/, (_statement: string, hoisted: string) => (imports.add(hoisted), "")))
      .join("\n")
      .replaceAll("export default ", "handler = ");
    blocks.push(`if (step === ${JSON.stringify(name)}) {\n${body}\n}`);
  }
  return [...imports, 'const step = stepOf("step");', "let handler;", ...blocks, "export default (request) => handler?.(request);"].join("\n");
}

/** The arguments that pick a step of an asSteps tool. */
const step = (name: string): Record<string, unknown> => ({ step: name });

const PLANT_AND_PROBE = asSteps({ plant: PLANT, probe: PROBE });

async function plantThenProbe(planter: GuestUser, prober: GuestUser): Promise<void> {
  assert.deepEqual(assertOk(await runTool(pool, PLANT_AND_PROBE, { user: planter, params: step("plant") })), { kind: "text", text: "planted" });
  const probed = assertOk(await runTool(pool, PLANT_AND_PROBE, { user: prober, params: step("probe") }));
  assert.deepEqual(probed, { kind: "json", value: [] }, `state leaked into the next run (${ISOLATE_REUSE} mode)`);
}

test("nothing a run plants is visible to the same user's next run", async () => {
  const reusedBefore = pool.stats().reusedIsolates;
  for (let round = 0; round < 3; round++) await plantThenProbe(USER, USER);
  if (ISOLATE_REUSE === "user") assert.ok(pool.stats().reusedIsolates > reusedBefore, "the runs really shared a warm isolate");
  else assert.equal(pool.stats().reusedIsolates, 0, "never mode never reuses an isolate");
});

test("another user never gets the planter's isolate", async () => {
  assertOk(await runTool(pool, PLANT_AND_PROBE, { user: USER, params: step("plant") }));
  const reused = pool.stats().reusedIsolates;
  assert.deepEqual(assertOk(await runTool(pool, PLANT_AND_PROBE, { user: BOB, params: step("probe") })), { kind: "json", value: [] });
  assert.equal(pool.stats().reusedIsolates, reused, "bob's first run got a never-used isolate");
});

test("a run that trips a limit costs its isolate: the next run starts in a new one", async () => {
  for (const [source, code] of [
    ["for (;;) {}", ["CPU_LIMIT", "TOOL_TIMEOUT"]],
    ["const keep = []; for (;;) keep.push(new Array(1e4).fill(1.5))", ["MEMORY_LIMIT", "CPU_LIMIT"]],
    ["await new Promise(() => {})", ["TOOL_TIMEOUT"]],
  ] as const) {
    // The same heap size throughout: isolates are kept per user *and* memory size.
    const limits = { ...ATTACK_LIMITS, heapMb: 16 };
    const tool = asSteps({ warm: "export default () => 1", trip: `globalThis.planted = "limit"; ${source}`, probe: PROBE });
    assertOk(await runTool(pool, tool, { limits, params: step("warm") }));
    assertError(await runTool(pool, tool, { limits, params: step("trip") }), [...code]);
    const reused = pool.stats().reusedIsolates;
    assert.deepEqual(assertOk(await runTool(pool, tool, { limits, params: step("probe") })), { kind: "json", value: [] });
    assert.equal(pool.stats().reusedIsolates, reused, `after ${code[0]} the isolate was not reused`);
  }
});

test("tripping the result or the loopback-call limit costs the isolate too; a log cut at its limit leaves nothing behind", async () => {
  const fast = await startLoopbackServer(() => ({ body: "ok" }));
  try {
    // The same heap size throughout (isolates are kept per user and memory size), small result and call budgets.
    const limits = { ...ATTACK_LIMITS, heapMb: 16, cpuMs: 1_000, wallMs: 5_000, resultBytes: 200, loopbackCalls: 1, logBytes: 200 };
    const options = { limits, loopback: fast.target };
    for (const [source, code] of [
      ['export default () => "x".repeat(1_000)', "RESULT_TOO_LARGE"],
      ['import { call } from "knot:plugin"; export default async () => { await call("metrics", "a"); try { await call("metrics", "b") } catch {} return "caught" }', "LOOPBACK_LIMIT"],
    ] as const) {
      const tool = asSteps({ warm: "export default () => 1", trip: `${PLANT_BODY}\n${source}`, probe: PROBE });
      assertOk(await runTool(pool, tool, { ...options, params: step("warm") }));
      assertError(await runTool(pool, tool, { ...options, params: step("trip") }), code);
      const reused = pool.stats().reusedIsolates;
      assert.deepEqual(assertOk(await runTool(pool, tool, { ...options, params: step("probe") })), { kind: "json", value: [] }, `state leaked after ${code}`);
      assert.equal(pool.stats().reusedIsolates, reused, `after ${code} the isolate was not reused`);
    }
    // A log past logBytes is cut and the run still answers: a clean end, so the isolate may serve the
    // user's next run, which must still see nothing of it.
    const flood = asSteps({ flood: `${PLANT_BODY}\nexport default () => { for (let i = 0; i < 1_000; i++) console.log("line " + i); return "flooded" }`, probe: PROBE });
    const flooded = await runTool(pool, flood, { ...options, params: step("flood") });
    assert.deepEqual(assertOk(flooded), { kind: "text", text: "flooded" });
    assert.ok(flooded.log.some((line) => line.message.startsWith("[log truncated")), "the log was cut");
    const reused = pool.stats().reusedIsolates;
    assert.deepEqual(assertOk(await runTool(pool, flood, { ...options, params: step("probe") })), { kind: "json", value: [] }, "state leaked after a cut log");
    if (ISOLATE_REUSE === "user") assert.equal(pool.stats().reusedIsolates, reused + 1, "the probe ran in the flooding run's kept isolate");
  } finally {
    await fast.close();
  }
});

test("a run that leaves a knot:plugin call pending costs its isolate", async () => {
  const leaver = `import { call } from "knot:plugin";\ncall("slow", "wait").then(() => { globalThis.planted = "late" }); export default () => "left"`;
  const tool = asSteps({ warm: "export default () => 1", leave: leaver, probe: PROBE });
  assertOk(await runTool(pool, tool, { params: step("warm") }));
  assert.deepEqual(assertOk(await runTool(pool, tool, { loopback: slow.target, params: step("leave") })), { kind: "text", text: "left" });
  const reused = pool.stats().reusedIsolates;
  await new Promise((resolve) => setTimeout(resolve, 400)); // the late answer arrives meanwhile
  assert.deepEqual(assertOk(await runTool(pool, tool, { params: step("probe") })), { kind: "json", value: [] });
  assert.equal(pool.stats().reusedIsolates, reused, "the isolate with a pending call was not reused");
});

test("a tool error keeps the isolate warm, and still leaves nothing behind", async () => {
  const tool = asSteps({ warm: "export default () => 1", throw: 'globalThis.planted = "thrown"; Object.prototype.polluted = 1; export default () => { throw new Error("boom") }', probe: PROBE });
  assertOk(await runTool(pool, tool, { params: step("warm") }));
  assertError(await runTool(pool, tool, { params: step("throw") }), "TOOL_ERROR", /boom/);
  const reused = pool.stats().reusedIsolates;
  assert.deepEqual(assertOk(await runTool(pool, tool, { params: step("probe") })), { kind: "json", value: [] });
  if (ISOLATE_REUSE === "user") assert.equal(pool.stats().reusedIsolates, reused + 1, "the probe ran in the throwing run's kept isolate");
});

test("a return* one run leaves behind is never the next run's answer", async () => {
  // The verdict waits in the guest until the run ends: a kept isolate must not carry it over.
  const tool = asSteps({
    plant: `import { returnString } from "knot:tool";\nexport default () => { try { returnString("planted") } catch {} }`,
    boom: `export default () => { throw new Error("boom") }`,
    topLevelBoom: `throw new Error("top-level boom")`,
    none: `export default () => {}`,
  });
  assert.deepEqual(assertOk(await runTool(pool, tool, { params: step("plant") })), { kind: "text", text: "planted" });
  const reusedBefore = pool.stats().reusedIsolates;
  assertError(await runTool(pool, tool, { params: step("boom") }), "TOOL_ERROR", /^boom$/);
  assertError(await runTool(pool, tool, { params: step("topLevelBoom") }), "TOOL_ERROR", /^top-level boom$/);
  assert.deepEqual(assertOk(await runTool(pool, tool, { params: step("none") })), { kind: "none" });
  if (ISOLATE_REUSE === "user") assert.ok(pool.stats().reusedIsolates > reusedBefore, "the runs really shared a warm isolate");
});

test("a finalizer cannot run the previous run's code during the next run (FinalizationRegistry is absent)", async () => {
  const planter = `
    let armed = "absent";
    if (typeof FinalizationRegistry === "function") {
      const registry = new FinalizationRegistry(() => { for (;;) {} });
      for (let i = 0; i < 20_000; i++) registry.register({ i }, i);
      armed = "armed";
    }
    export default () => armed;`;
  const churn = "export default () => { let keep = 0; for (let i = 0; i < 200_000; i++) keep += [i].length; return keep }";
  const tool = asSteps({ planter, churn });
  assert.deepEqual(assertOk(await runTool(pool, tool, { params: step("planter") })), { kind: "text", text: "absent" });
  assert.deepEqual(assertOk(await runTool(pool, tool, { limits: { cpuMs: 1_000 }, params: step("churn") })), { kind: "json", value: 200_000 });
});

test("the Symbol registry is the run's own: a key registered in one run is not registered in the next, and its memory goes with the run", async () => {
  // V8's registry belongs to the isolate and is never collected: with a warm isolate per user, a
  // probe planted 40 MB of keys in one clean run and the user's next run (or a shared tool's
  // runner's) failed a 36 MB allocation its heap limit allows, and could measure what was left.
  const limits = { ...ATTACK_LIMITS, heapMb: 64, cpuMs: 4_000, wallMs: 8_000 };
  const plant = `const s = Symbol.for("knot.planted.key");
    for (let i = 0; i < 40; i++) Symbol.for(String(i).padStart(1 << 20, "x").split("").join(""));
    export default () => [Symbol.keyFor(s), Symbol.for("knot.planted.key") === s, typeof Symbol.keyFor(Symbol("x"))].join()`;
  const hold = `export default () => { const a = []; for (let i = 0; i < 36; i++) a.push(Array.from({ length: 1 << 17 }, (_, j) => j + i + 0.5)); return a.length }`;
  const probe = `export default () => { const keys = []; for (let i = 0; i < 3; i++) keys.push(Symbol.keyFor(Symbol.for("p" + i))); return keys.join() }`;
  const tool = asSteps({ plant, hold, probe, refuse: `export default () => Symbol.keyFor("not a symbol")` });
  assert.deepEqual(assertOk(await runTool(pool, tool, { limits, params: step("plant") })), { kind: "text", text: "knot.planted.key,true,undefined" });
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(assertOk(await runTool(pool, tool, { limits, params: step("hold") })), { kind: "json", value: 36 }, `round ${round}: the planted keys were not carried over`);
  }
  assert.deepEqual(assertOk(await runTool(pool, tool, { limits, params: step("probe") })), { kind: "text", text: "p0,p1,p2" });
  assertError(await runTool(pool, tool, { limits, params: step("refuse") }), "TOOL_ERROR", /not a symbol/);
});

test("locale arguments never reach ICU: its caches belong to the process, so every run formats in the default locale", async () => {
  // Eighth round: `toLocaleString("fi-u-ca-buddhist-nu-thai")` made ICU cache a date pattern per
  // locale name for the process (~51 KB each, never freed): 5,000 names in one clean run grew the
  // worker by 250 MB past every heap limit, and a locale's fast first use told a run which locales
  // another user had used. Options that shape the output only are kept.
  const probe = `export default () => {
    const d = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
    const same = (a, b) => a === b || a + " != " + b;
    return [
      same(d.toLocaleString("th-u-ca-buddhist-nu-thai"), d.toLocaleString()),
      same(d.toLocaleDateString("fi", { calendar: "islamic", year: "2-digit" }), d.toLocaleDateString()),
      same(d.toLocaleTimeString("ar-EG", { hourCycle: "h11" }), d.toLocaleTimeString()),
      same((1234.5).toLocaleString("de-DE-u-nu-arab"), (1234.5).toLocaleString()),
      same((1234.5).toLocaleString("de", { numberingSystem: "thai", maximumFractionDigits: 0 }), (1234.5).toLocaleString(undefined, { maximumFractionDigits: 0 })),
      same((12n).toLocaleString("hi-u-nu-deva"), (12n).toLocaleString()),
      same("i".toLocaleUpperCase("tr"), "I"),
      same([d, 1.5].toLocaleString("th-u-nu-thai"), [d.toLocaleString(), (1.5).toLocaleString()].join()),
      same("a".localeCompare("A", "de-u-co-phonebk", { sensitivity: "base" }), 0),
      same((0.5).toLocaleString(undefined, { style: "percent" }), "50%"),
    ];
  }`;
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(assertOk(await runTool(pool, probe)), { kind: "json", value: Array(10).fill(true) }, `round ${round} (${ISOLATE_REUSE} mode)`);
  }
});

test("a run that trips a V8 protector never shares its isolate with the user's other tools", async () => {
  // V8's protector cells (fast-path guarantees such as "no prototype has elements", "no array
  // has its own `constructor`") belong to the isolate and, once invalidated, stay invalid. A clean
  // run could trip them in its own context and leave the user's later runs in the same warm
  // isolate 5–15× slower (an ordinary tool went over its CPU limit), also through a shared tool
  // the victim ran. Every protector also trips on objects the run makes itself, and stays
  // tripped after the change is undone, so no end-of-run check finds them all: a warm isolate
  // serves one user's runs of one tool's code only. Each variant below was checked against V8's
  // own protector flags (node --allow-natives-syntax) to trip what its comment says.
  const trips = [
    "Array.prototype[3] = 3; Object.prototype[7] = 7", // NoElements
    "Array.prototype[3] = 3; delete Array.prototype[3]", // NoElements, undone before the run ends
    "[].constructor = Array", // ArraySpecies, on the run's own array
    "const own = []; own[Symbol.iterator] = null", // ArrayIterator
    "const it = [][Symbol.iterator](); it.next = it.next", // ArrayIterator, same value put back
    "const kept = Array.prototype[Symbol.iterator]; Array.prototype[Symbol.iterator] = function* () {}; Array.prototype[Symbol.iterator] = kept",
    "({})[Symbol.isConcatSpreadable] = false", // IsConcatSpreadable
    "new Map().keys().next = null; new Set().values().next = null", // MapIterator, SetIterator
    "/a/.constructor = RegExp; new Uint8Array(1).constructor = Uint8Array", // RegExpSpecies, TypedArraySpecies
    'new String("a")[Symbol.toPrimitive] = null', // StringWrapperToPrimitive
    "Promise.prototype.then = Promise.prototype.then; Promise.resolve(1).constructor = Promise", // PromiseThen, PromiseSpecies
  ];
  const tool = "export default () => [1, 2, 3].map((x) => x + 1).length + [...[4, 5]].length";
  for (const [index, trip] of trips.entries()) {
    const user: GuestUser = { ...USER, id: `u-tripper-${index}`, name: `tripper${index}` };
    assert.deepEqual(assertOk(await runTool(pool, `${trip};\nexport default () => "tripped"`, { user })), { kind: "text", text: "tripped" });
    const before = pool.stats().reusedIsolates;
    assert.deepEqual(assertOk(await runTool(pool, tool, { user })), { kind: "json", value: 5 });
    assert.equal(pool.stats().reusedIsolates, before, `after \`${trip}\` the user's other tool got a never-used isolate`);
    // Control: an ordinary clean run still keeps its isolate for the same tool's next run.
    assert.deepEqual(assertOk(await runTool(pool, tool, { user })), { kind: "json", value: 5 });
    assert.equal(pool.stats().reusedIsolates, before + (ISOLATE_REUSE === "user" ? 1 : 0), "the tool's own isolate was kept");
  }
});
