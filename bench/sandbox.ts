/**
 * `npm run bench` (part): the cost of the sandbox, measured against baselines in the same run.
 *   - a trivial user tool run back to back (with isolate_reuse "never" each run waits for a new
 *     isolate; with "user" each gets a fresh context in the user's warm isolate) and run 25 ms
 *     apart (the worker has its spare isolate or next context ready; after the pause, caches are cold);
 *   - the same logic as a plain function call in the host (the floor);
 *   - one `knot:plugin.call` from a user tool vs a raw undici request from the host to the same
 *     handler URL (the loopback's own overhead), in turns with the runs 25 ms apart;
 *   - runs per second with 8 concurrent runs.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { request as undiciRequest } from "undici";
import { createApp } from "../src/app.ts";
import { hashSecret, mintSecret } from "../src/auth/secrets.ts";
import { DEFAULT_CONFIG, type ServerConfig } from "../src/config.ts";
import { silentLogger } from "../src/log.ts";
import { DEFAULT_QUOTAS } from "../src/tools/quotas.ts";
import { fmt, percentile, timed } from "./stats.ts";

const TRIVIAL = "export default (r) => r.params.n + 1;";
const ONE_CALL = `import { call } from "knot:plugin";\nexport default async () => call("demo", "echo_word", { word: "bench" });`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SandboxNumbers {
  readonly trivialP50Ms: number;
  readonly runsPerSecond: number;
  readonly loopbackOverheadMs: number;
  readonly loopbackRatio: number;
}

export async function runSandboxBench(runs = 200, isolateReuse: "user" | "never" = "user"): Promise<{ lines: string[]; numbers: SandboxNumbers }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "knot-bench-"));
  const config: ServerConfig = {
    ...DEFAULT_CONFIG, port: 0, database: path.join(dir, "bench.db"), pluginsDir: path.resolve(import.meta.dirname, "../examples/plugins"),
    quotas: { ...DEFAULT_QUOTAS, userRunsPerMinute: 1e9, tokenRunsPerMinute: 1e9, userConcurrentRuns: 64, tokenConcurrentRuns: 64 },
    sandbox: { ...DEFAULT_CONFIG.sandbox, userRunsInFlight: 8, isolateReuse },
  };
  const app = await createApp(config, { logger: silentLogger });
  const { url } = await app.listen();
  try {
    const admin = await app.store.createUser({ name: "bench", isAdmin: true });
    const secret = mintSecret("kt_");
    await app.store.createToken({ userId: admin.id, name: "bench", secretHash: hashSecret(secret), scopes: null, expiresAt: null });
    const principal = (await app.auth.principalFor(admin.id))!;
    const run = (code: string) => app.runner.run(principal, { name: "bench", code, language: "js" }, { n: 1 }, { validated: true });
    for (let i = 0; i < 20; i++) await run(TRIVIAL); // warm the workers

    const backToBack: number[] = [];
    for (let i = 0; i < runs; i++) await timed(backToBack, () => run(TRIVIAL));
    // In turns, under the same conditions: each run after the same pause (the worker prepares its
    // spare isolate meanwhile), and the raw request right after a run, as the loopback call comes
    // right after its run starts. The baseline used to be requests back to back, warm, against
    // calls inside runs spaced apart: that charged the loopback for the pause's cold caches.
    const spaced: number[] = [];
    const withCall: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < runs; i++) {
      await sleep(25);
      await timed(spaced, () => run(TRIVIAL));
      await timed(raw, async () => {
        const res = await undiciRequest(`${url}/plugins/demo/echo_word?word=bench`, { headers: { authorization: `Bearer ${secret}` } });
        await res.body.json();
      });
      await sleep(25);
      await timed(withCall, () => run(ONE_CALL));
    }
    const floor: number[] = [];
    const plain = (request: { params: { n: number } }) => request.params.n + 1;
    for (let i = 0; i < runs * 50; i++) await timed(floor, () => plain({ params: { n: 1 } }));

    const concurrentRuns = runs * 2;
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next++ < concurrentRuns) await run(TRIVIAL);
    }));
    const perSecond = concurrentRuns / ((performance.now() - started) / 1000);

    const row = (label: string, s: number[]) => `${label.padEnd(58)} p50 ${fmt(percentile(s, 50)).padStart(10)}   p99 ${fmt(percentile(s, 99)).padStart(10)}`;
    const loopbackOverhead = percentile(withCall, 50) - percentile(spaced, 50);
    const numbers: SandboxNumbers = {
      trivialP50Ms: percentile(backToBack, 50),
      runsPerSecond: perSecond,
      loopbackOverheadMs: loopbackOverhead,
      loopbackRatio: loopbackOverhead / percentile(raw, 50),
    };
    const lines = [
      `sandbox, isolate_reuse = "${isolateReuse}" (${runs} runs each; ${os.cpus().length} cores)`,
      row(`trivial user tool, back to back (${isolateReuse === "never" ? "a new isolate each" : "warm user isolate"})`, backToBack),
      row("trivial user tool, runs 25 ms apart (ready context)", spaced),
      row("baseline: same logic as a host function call", floor),
      row("user tool making one knot:plugin.call (25 ms apart)", withCall),
      row("baseline: raw undici request from the host, same handler", raw),
      `  ratio back to back / apart: ${(percentile(backToBack, 50) / percentile(spaced, 50)).toFixed(2)}×;  apart / host floor: ${(percentile(spaced, 50) / percentile(floor, 50)).toFixed(0)}×`,
      `  loopback call inside a run (run with call − run without): ${fmt(loopbackOverhead)} = ${(loopbackOverhead / percentile(raw, 50)).toFixed(2)}× a raw host request`,
      `  8 concurrent runs: ${perSecond.toFixed(0)} runs/s`,
    ];
    return { lines, numbers };
  } finally {
    await app.close();
  }
}

if (import.meta.main) {
  const runs = Number(process.argv[2] ?? 200);
  for (const line of (await runSandboxBench(runs)).lines) console.log(line);
}
