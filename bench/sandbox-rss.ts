/**
 * `npm run bench` (part): a sandbox worker's resident memory over many runs (issue 13: "flat, leak
 * found"). One worker, recycling off, N trivial runs from a few users at 4 concurrent; the RSS of
 * the worker process is read from /proc after a warm-up (up to 2,000 runs) and at the end.
 */
import { createSandboxPool, DEFAULT_RUN_LIMITS, type GuestUser } from "../sandbox/index.ts";
import { memoryOf, sandboxWorkers } from "./proc.ts";

const USERS: GuestUser[] = ["a", "b", "c"].map((id) => ({ id, name: id, isAdmin: false, groups: [], permissions: [], pluginPermissions: [] }));
const SOURCE = "export default (r) => ({ n: r.params.n + 1, text: 'x'.repeat(200) })";

function workerRssMb(): number {
  return sandboxWorkers().reduce((total, pid) => total + (memoryOf(pid)?.rssMb ?? 0), 0);
}

export async function runRssBench(runs: number, isolateReuse: "user" | "never"): Promise<{ beforeMb: number; afterMb: number; runs: number }> {
  const pool = createSandboxPool({ workers: 1, runsPerWorker: 4, userRunsInFlight: 4, recycleAfterRuns: 1e9, isolateReuse, workerMemoryMb: 4096 });
  let seq = 0;
  const one = async () => {
    seq += 1;
    const user = USERS[seq % USERS.length] as GuestUser;
    const outcome = await pool.run(
      { runId: `rss-${seq}`, source: SOURCE, filename: "tool:rss", params: { n: seq }, user, loopback: null, limits: DEFAULT_RUN_LIMITS },
      { resolveModule: () => null },
    );
    if (!outcome.ok) throw new Error(`run failed: ${JSON.stringify(outcome.error)}`);
  };
  const batch = async (count: number) => {
    let left = count;
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (left-- > 0) await one();
    }));
  };
  try {
    // Warm up to the plateau: kept isolates hold dead contexts until their own major GC, and
    // malloc arenas settle; measured in-process, both level off within ~1,600 runs.
    await batch(Math.min(2_000, runs / 5));
    const beforeMb = workerRssMb();
    await batch(runs);
    return { beforeMb, afterMb: workerRssMb(), runs };
  } finally {
    await pool.close();
  }
}

if (import.meta.main) {
  const runs = Number(process.argv[2] ?? 10_000);
  for (const mode of ["never", "user"] as const) {
    const { beforeMb, afterMb } = await runRssBench(runs, mode);
    console.log(`${mode}: worker RSS ${beforeMb.toFixed(0)} → ${afterMb.toFixed(0)} MB over ${runs} runs`);
  }
}
