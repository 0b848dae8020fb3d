/**
 * `node bench/sandbox-profile.ts [mode] [runs]`: where a trivial run's time goes (issue 13), straight
 * on the pool (no HTTP, no tool runner): back-to-back latency, runs/s at 8 concurrent, and the CPU
 * each run costs the host and the worker processes (from /proc). On a shared machine compare the
 * CPU columns, not the wall-clock ones.
 */
import { createSandboxPool, DEFAULT_RUN_LIMITS } from "../sandbox/index.ts";
import { cpuMsOf, reapedChildrenCpuMsOf, sandboxWorkers } from "./proc.ts";
import { percentile } from "./stats.ts";

/** CPU time (ms) of this process's sandbox worker children, the retired ones included. */
function workersCpuMs(): number {
  return sandboxWorkers().reduce((total, pid) => total + cpuMsOf(pid), reapedChildrenCpuMsOf(process.pid));
}

export async function profileSandbox(mode: "user" | "never", runs: number): Promise<string[]> {
  const pool = createSandboxPool({ workers: 2, runsPerWorker: 4, userRunsInFlight: 8, isolateReuse: mode });
  const user = { id: "bench", name: "bench", isAdmin: false, groups: [], permissions: [], pluginPermissions: [] };
  let seq = 0;
  const run = async () => {
    const outcome = await pool.run(
      { runId: `p${seq++}`, source: "export default (r) => r.params.n + 1;", filename: "tool:bench", params: { n: 1 }, user, loopback: null, limits: DEFAULT_RUN_LIMITS },
      { resolveModule: () => null },
    );
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
  };
  try {
    for (let i = 0; i < 50; i++) await run();
    const latency: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await run();
      latency.push(performance.now() - started);
    }
    const hostBefore = process.cpuUsage();
    const workersBefore = workersCpuMs();
    const started = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next++ < runs * 2) await run();
    }));
    const seconds = (performance.now() - started) / 1000;
    const host = process.cpuUsage(hostBefore);
    const hostMs = (host.user + host.system) / 1000 / (runs * 2);
    const workerMs = (workersCpuMs() - workersBefore) / (runs * 2);
    return [
      `pool only, isolate_reuse "${mode}": back-to-back p50 ${percentile(latency, 50).toFixed(2)} ms, p90 ${percentile(latency, 90).toFixed(2)} ms; ` +
        `8 concurrent ${((runs * 2) / seconds).toFixed(0)} runs/s; CPU per run: host ${hostMs.toFixed(2)} ms, workers ${workerMs.toFixed(2)} ms`,
    ];
  } finally {
    await pool.close();
  }
}

if (import.meta.main) {
  const asked = process.argv[2];
  const modes: ReadonlyArray<"user" | "never"> = asked === "user" || asked === "never" ? [asked] : ["never", "user"];
  for (const mode of modes) for (const line of await profileSandbox(mode, Number(process.argv[3] ?? 500))) console.log(line);
}
