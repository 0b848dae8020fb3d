/**
 * Attack family: reading the host's layout from stack traces. Every error guest code can catch —
 * its own, the runtime's TypeErrors, knot:plugin rejections, the dynamic-import refusal, engine
 * errors — carries a stack, and `Error.prepareStackTrace` hands out CallSites with file names.
 * Guarantee: the only file names guest code can learn are its own (`tool:…`, `plugin:…`, `lib:…`)
 * and the guest runtime's virtual `knot:internal/…` names; never a host path, a URL of the host's
 * files, a worker module or node_modules. The run's outcome carries no stack either.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { CALLING_LIMITS, assertError, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, startLoopbackServer, type LoopbackServer, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
let server: LoopbackServer;

before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
  server = await startLoopbackServer((_plugin, fn) => (fn === "denied" ? { status: 403 } : fn === "broken" ? { status: 500, body: { error: { message: "boom" } } } : { status: 404 }));
});
after(async () => {
  await pool.close();
  await server.close();
});

const COLLECT = `
  import * as tool from "knot:tool";
  import { call } from "knot:plugin";
  import { tag } from "plugin:demo/format";
  const stacks = [];
  const files = new Set();
  const keep = (label, error) => {
    try { stacks.push(label + ": " + String(error?.stack)) } catch { stacks.push(label + ": <unreadable>") }
  };
  const sites = () => {
    const original = Error.prepareStackTrace;
    Error.prepareStackTrace = (_e, frames) => frames;
    const frames = new Error("where").stack;
    Error.prepareStackTrace = original;
    for (const frame of frames) { files.add(String(frame.getFileName())); files.add(String(frame.getScriptNameOrSourceURL?.())) }
  };
  const attempt = async (label, fn) => { try { await fn() } catch (error) { keep(label, error) } };
  export default async () => {
    await attempt("own", () => { throw new Error("mine") });
    await attempt("getter", () => tool.getInt("n"));
    await attempt("list", () => tool.getBoolList("flags"));
    await attempt("content", () => tool.returnContent([{ type: "image" }]));
    await attempt("progress", () => tool.progress("x"));
    await attempt("call-names", () => call("Bad Name", "x"));
    await attempt("call-403", () => call("metrics", "denied"));
    await attempt("call-500", () => call("metrics", "broken"));
    await attempt("call-404", () => call("metrics", "ghost"));
    await attempt("dynamic-import", () => import("node:fs"));
    await attempt("overflow", () => { const f = () => f(); f() });
    await attempt("json", () => JSON.parse("{"));
    await attempt("client-module", () => tag(null));
    sites();
    await new Promise((resolve) => setTimeout(resolve, 0)).catch(() => {});
    await call("metrics", "ghost").catch(() => sites());
    return { stacks, files: [...files] };
  };`;

const FORMAT = `export function tag(value) { if (value === null) throw new TypeError("tag needs a value"); return "#" + value; }`;

test("no stack or CallSite reachable from guest code names a host file", async () => {
  const outcome = await runTool(pool, COLLECT, {
    params: { n: "not a number", flags: ["maybe"] },
    loopback: server.target,
    limits: CALLING_LIMITS,
    hooks: { resolveModule: (specifier) => (specifier === "plugin:demo/format" ? FORMAT : null) },
  });
  const result = assertOk(outcome);
  assert.equal(result.kind, "json");
  const { stacks, files } = (result as { value: { stacks: string[]; files: string[] } }).value;
  assert.equal(stacks.length, 13, `every attempt threw: ${JSON.stringify(stacks)}`);
  const text = JSON.stringify({ stacks, files });
  for (const leak of [process.cwd(), "/work/", "node_modules", "sandbox/worker", "sandbox/guest", "file://", "isolated-vm", "undici", "127.0.0.1", server.target.token]) {
    assert.ok(!text.includes(leak), `guest-visible stacks must not contain ${JSON.stringify(leak)}: ${text}`);
  }
  for (const file of files) {
    assert.match(file, /^(tool:test|plugin:demo\/format|knot:internal\/[a-z-]+(\.ts)?|undefined|null)$/, `unexpected file name ${file}`);
  }
  assert.ok(files.includes("tool:test"), "the tool's own frames are named by its virtual filename");
  await assertHostUnharmed(pool, marker);
});

test("a tool that fails by throwing reports its message only: no stack in the outcome", async () => {
  const outcome = await runTool(pool, `export default () => { const e = new Error("outer"); e.stack = "at /etc/passwd:1:1"; throw e }`);
  assertError(outcome, "TOOL_ERROR", /^outer$/);
  assert.doesNotMatch(JSON.stringify(outcome), /passwd|stack/);
  await assertHostUnharmed(pool, marker);
});
