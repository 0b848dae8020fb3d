/**
 * Attack: make linking expensive. A tool importing many big libs (each up to the 256 KB save limit,
 * each with an `import()` so the worker parses it to rewrite it) held the worker's thread while it
 * linked — outside every run limit, no timer or heartbeat could run. With 16 such libs the pool
 * killed the worker for missed heartbeats: another user's run on it failed WORKER_CRASHED, and the
 * culprit (never acknowledged: the thread was busy) was sent on to the next worker. Now a run's
 * module graph has a byte budget (MAX_MODULE_GRAPH_CHARS), the linker yields to the worker's event
 * loop between big modules and charges its own parsing to the run's CPU budget, and a run about to
 * link a big graph is acknowledged first, so it is never re-run elsewhere.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { GuestUser, RunOutcome, SandboxPool } from "../../sandbox/index.ts";
import { MAX_MODULE_GRAPH_CHARS } from "../../sandbox/protocol.ts";
import { assertError, assertOk, createReadyPool, makeJob, USER } from "./harness.ts";

const MALLORY: GuestUser = Object.freeze({ ...USER, id: "u-mallory", name: "mallory" });
const BOB: GuestUser = Object.freeze({ ...USER, id: "u-bob", name: "bob" });

/** A lib of `chars` characters that acorn must parse (it has an `import()`), slow to parse per byte. */
function bigLib(chars: number, tag: number): string {
  const head = `export const x = ${tag};\nif (0) import("x");\nlet a, b, c;\n`;
  return head + "({a,b,c}={});".repeat(Math.floor((chars - head.length - 16) / 13)) + `\n// ${tag}\n`;
}

function libSet(count: number, chars: number): { tool: string; modules: Record<string, string> } {
  const modules: Record<string, string> = {};
  for (let i = 0; i < count; i++) modules[`lib:big${i}`] = bigLib(chars, i);
  const tool = `${Object.keys(modules).map((specifier, i) => `import { x as x${i} } from "${specifier}";`).join("\n")}\nexport default () => "linked";\n`;
  return { tool, modules };
}

let pool: SandboxPool;
before(async () => {
  // The default heartbeat: killed after 3.5 s without a message. One module's parse fits (a cold parse
  // of 256 KB took 0.6 s here, more on a loaded machine); 32 libs' took ~8 s.
  pool = await createReadyPool({ workers: 1, runsPerWorker: 4, userRunsInFlight: 4, heartbeatMs: 1_000 });
});
after(() => pool.close());

function run(source: string, user: GuestUser, modules?: Record<string, string>): Promise<RunOutcome> {
  return pool.run(makeJob(source, { user, limits: { cpuMs: 2_000, wallMs: 8_000 }, ...(modules ? { modules } : {}) }), { resolveModule: () => null });
}

const bystander = `export default () => { const until = Date.now() + 1_500; while (Date.now() < until) {} return "bob done"; }`;

test("a graph over the byte budget is refused, naming the limit; another user's run on the worker is untouched", async () => {
  const restarts = pool.stats().restarts;
  const { tool, modules } = libSet(32, 256 * 1024);
  const bob = run(bystander, BOB);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const mallory = await run(tool, MALLORY, modules);
  assertError(mallory, "MODULE_NOT_ALLOWED", new RegExp(`at most ${MAX_MODULE_GRAPH_CHARS.toLocaleString("en-US")} characters`));
  assert.deepEqual(assertOk(await bob), { kind: "text", text: "bob done" });
  assert.equal(pool.stats().restarts, restarts, "the worker was not replaced");
});

test("graphs within the budget, three linking at once next to another run, do not cost the worker its heartbeats", async () => {
  const restarts = pool.stats().restarts;
  const perLib = Math.floor((MAX_MODULE_GRAPH_CHARS - 4_096) / 3);
  const bob = run(bystander, BOB);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const runs = Array.from({ length: 3 }, (_, n) => {
    const { tool, modules } = libSet(3, perLib - n);
    return run(tool, MALLORY, modules);
  });
  for (const outcome of await Promise.all(runs)) {
    // Linked and run, or stopped by its own CPU budget on a slow machine: never the worker's loss.
    if (outcome.ok) assert.deepEqual(outcome.result, { kind: "text", text: "linked" });
    else assertError(outcome, "CPU_LIMIT");
  }
  assert.deepEqual(assertOk(await bob), { kind: "text", text: "bob done" });
  assert.equal(pool.stats().restarts, restarts, "the worker was not replaced");
});

test("a run whose linking costs its worker is not sent on to another worker: it fails for its own caller", async () => {
  // A heartbeat so short that one big module's parse (within the budget) outlasts it.
  const touchy = await createReadyPool({ workers: 1, runsPerWorker: 4, heartbeatMs: 100 });
  try {
    const restarts = touchy.stats().restarts;
    const lib = bigLib(MAX_MODULE_GRAPH_CHARS - 4_096, 0);
    const job = makeJob(`import { x } from "lib:one";\nexport default () => x;\n`, { user: MALLORY, limits: { cpuMs: 5_000, wallMs: 8_000 }, modules: { "lib:one": lib } });
    const outcome = await touchy.run(job, { resolveModule: () => null });
    // On a fast machine the parse may fit between beats: then it simply ran.
    if (!outcome.ok) assertError(outcome, "WORKER_CRASHED", /missed its heartbeats/);
    assert.ok(touchy.stats().restarts - restarts <= 1, `the run was dispatched again: ${touchy.stats().restarts - restarts} workers replaced`);
  } finally {
    await touchy.close();
  }
});
