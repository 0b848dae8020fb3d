/**
 * Cold-run cost of a trivial user tool through the real pool: every run gets a fresh isolate and
 * context (prepared ahead when the worker has idle time). Prints median and p90 of 50 runs, back
 * to back and with idle gaps, beside a baseline measured in the same process: a fresh node:vm
 * context per run (no isolation at all), to show what the isolation costs.
 *
 *   ./node_modules/.bin/node --no-node-snapshot bench/sandbox-smoke.ts
 */
import vm from "node:vm";
import { createSandboxPool, DEFAULT_RUN_LIMITS, type RunJob } from "../sandbox/index.ts";

const RUNS = 50;
const SOURCE = 'export default (request) => "hello " + request.params.name';
const user = { id: "bench", name: "bench", isAdmin: false, groups: [], permissions: [], pluginPermissions: [] };

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const p90 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)] ?? NaN;
const ms = (value: number): string => `${value.toFixed(2).padStart(7)} ms`;
const sleep = (value: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, value));

let counter = 0;
const job = (): RunJob => ({
  runId: `bench-${(counter += 1)}`,
  source: SOURCE,
  filename: "tool:bench",
  params: { name: "world" },
  user,
  loopback: null,
  limits: DEFAULT_RUN_LIMITS,
});

const bootStarted = performance.now();
const pool = createSandboxPool({ workers: 1 });
while (pool.stats().workers === 0) await sleep(5);
const bootMs = performance.now() - bootStarted;

async function series(gapMs: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    if (gapMs > 0) await sleep(gapMs);
    const started = performance.now();
    const outcome = await pool.run(job(), { resolveModule: () => null });
    times.push(performance.now() - started);
    if (!outcome.ok || outcome.result.kind !== "text") throw new Error(`unexpected outcome ${JSON.stringify(outcome)}`);
  }
  return times;
}

await series(10); // warm-up: JIT of the pool and worker code paths
const backToBack = await series(0);
const withIdle = await series(20);
await pool.close();

const baseline: number[] = [];
for (let index = 0; index < RUNS; index += 1) {
  const started = performance.now();
  const context = vm.createContext({ params: { name: "world" } });
  new vm.Script('(() => "hello " + params.name)()').runInContext(context);
  baseline.push(performance.now() - started);
}

console.log(`sandbox cold run of a trivial tool (fresh isolate + context per run), ${RUNS} runs each`);
console.log(`  pool.run, back to back        median ${ms(median(backToBack))}   p90 ${ms(p90(backToBack))}`);
console.log(`  pool.run, 20 ms idle between  median ${ms(median(withIdle))}   p90 ${ms(p90(withIdle))}`);
console.log(`  baseline: node:vm context     median ${ms(median(baseline))}   p90 ${ms(p90(baseline))}   (same process, no isolation)`);
console.log(`  worker process start to ready        ${ms(bootMs)}`);
