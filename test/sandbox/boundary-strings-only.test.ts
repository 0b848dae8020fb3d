/**
 * Boundary: only strings cross the isolate wall. isolated-vm can hand a guest live host objects —
 * `ExternalCopy`, `{ copy: true }` / `{ reference: true }` transfers, `Reference`s, promises that
 * resolve host-side — and any one of them is a path from guest code to the worker's realm. This
 * file pins down, from the source, that the worker uses none of them towards the guest: the guest
 * gets exactly three host functions, all `Callback`s (which copy their arguments), installed on the
 * global before the guest bundle runs; the worker keeps the only References (to the bundle's
 * hand-off object, deleted from the global before user code, and the guest functions it calls,
 * `begin`, `deliver` and `takeFinished`) and passes them strings. The one ExternalCopy is V8's code cache of the
 * guest bundle, handed to the compiler (ivm.ts's CodeCache type), never to a guest realm. And, at run time, that those host
 * functions are no longer on the guest global when user code runs (what they accept and answer
 * is tried in attack-value-hooks.test.ts).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { SandboxPool } from "../../sandbox/index.ts";
import { assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, type Marker } from "./harness.ts";

const workerDir = fileURLToPath(new URL("../../sandbox/worker/", import.meta.url));
const read = (file: string) => fs.readFileSync(path.join(workerDir, file), "utf8");
const workerFiles = () => fs.readdirSync(workerDir).filter((file) => file.endsWith(".ts"));

test("the worker never hands the guest a copy, transfer or reference; host functions are Callbacks only", () => {
  const files = workerFiles();
  assert.ok(files.length >= 10);
  for (const file of files) {
    // ivm.ts names the code cache's type once; nothing else may name ExternalCopy.
    const text = file === "ivm.ts" ? read(file).replace("export type CodeCache = ivm.ExternalCopy<ArrayBuffer>;", "") : read(file);
    for (const banned of [/ExternalCopy/, /copy:\s*true/, /externalCopy/, /transferIn/, /promise:\s*true/, /\.derefInto\(/, /new\s+ivm\.Reference/, /\.setIgnored\(/]) {
      assert.doesNotMatch(text, banned, `${file} must not use ${banned.source}`);
    }
  }
  // The only objects placed on a guest global: three Callbacks (set synchronously or not).
  const sets = files.flatMap((file) => [...read(file).matchAll(/global\.set(?:Sync)?\(([^\n]*)\)/g)].map((m) => `${file}: ${m[1]}`));
  assert.equal(sets.length, 3, sets.join("\n"));
  const anySetSync = files.flatMap((file) => [...read(file).matchAll(/\.setSync\(/g)].map(() => file));
  assert.equal(anySetSync.length, 3, "setSync is used only for the three global Callbacks");
  for (const set of sets) assert.match(set, /^guest-code\.ts: GLOBAL_NAMES\.(emit|call|wait), create(Waiting)?Callback\(/);
  // The only References: the worker's handles on guest functions it calls with strings.
  const references = files.flatMap((file) => [...read(file).matchAll(/reference:\s*true/g)].map(() => file));
  assert.deepEqual(references, ["guest-code.ts", "guest-code.ts", "guest-code.ts", "guest-code.ts"]);
  // The code cache goes to the compiler only.
  const caches = files.flatMap((file) => [...read(file).matchAll(/cachedData/g)].map(() => file));
  assert.ok(caches.every((file) => file === "guest-code.ts"), caches.join(", "));
  // isolated-vm's constructors are reachable only through ivm.ts, which offers an isolate and Callbacks
  // (fire-and-forget ones, and the one the guest waits on).
  assert.deepEqual([...read("ivm.ts").matchAll(/new ivm\.(\w+)/g)].map((m) => m[1]).sort(), ["Callback", "Callback", "Isolate"]);
});

let pool: SandboxPool;
let marker: Marker;
before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
});
after(() => pool.close());

test("the guest's hand-off global is gone even when a tool imports the knot:* modules made for it while linking", async () => {
  // knot:identity and knot:plugin are made on first import (guest-code.ts), while linking; the
  // hand-off global they read goes before any user module is evaluated. The tool's top level and
  // its handler look for it.
  const source = `import { call } from "knot:plugin";
    import { user } from "knot:identity";
    import { getString } from "knot:tool";
    const seen = (label) => [label, "__knot_guest" in globalThis, Object.getOwnPropertyNames(globalThis).filter((n) => ["__knot_guest", "__knot_emit", "__knot_call", "__knot_wait"].includes(n))];
    const atTop = seen("top");
    export default () => ({ atTop, inHandler: seen("handler"), kinds: [typeof call, typeof user, typeof getString] });`;
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(assertOk(await runTool(pool, source)), {
      kind: "json",
      value: { atTop: ["top", false, []], inHandler: ["handler", false, []], kinds: ["function", "function", "function"] },
    });
  }
  await assertHostUnharmed(pool, marker);
});

test("the three host functions are gone from the guest global before user code runs", async () => {
  // The prelude captured and deleted them; the tool tries every way back to them it can name.
  const source = `export default () => {
    const names = ["__knot_emit", "__knot_call", "__knot_wait"];
    const found = names.filter((n) => n in globalThis || Object.getOwnPropertyNames(globalThis).includes(n));
    return { found, descriptor: names.map((n) => typeof Object.getOwnPropertyDescriptor(globalThis, n)) };
  };`;
  assert.deepEqual(assertOk(await runTool(pool, source)), { kind: "json", value: { found: [], descriptor: ["undefined", "undefined", "undefined"] } });
  await assertHostUnharmed(pool, marker);
});
