/**
 * `npm run bench` (part): a sandbox worker's resident memory over many runs (issue 13: "flat, leak
 * found"). One worker, recycling off, N trivial runs from a few users at 4 concurrent; the RSS of
 * the worker process is read from /proc after a warm-up (up to 2,000 runs), after each tenth of the
 * runs, and at the end. The range matters as much as the two ends: kept isolates free their dead
 * contexts at their own major GCs, so the RSS swings by tens of MB without creeping (50,000 runs
 * stayed within 222–251 MB, ending at the low end).
 */
import { createSandboxPool, DEFAULT_RUN_LIMITS, type GuestUser } from "../sandbox/index.ts";
import { memoryOf, sandboxWorkers } from "./proc.ts";

const USERS: GuestUser[] = ["a", "b", "c"].map((id) => ({ id, name: id, isAdmin: false, groups: [], permissions: [], pluginPermissions: [] }));
const SOURCE = "export default (r) => ({ n: r.params.n + 1, text: 'x'.repeat(200) })";

function workerRssMb(): number {
  return sandboxWorkers().reduce((total, pid) => total + (memoryOf(pid)?.rssMb ?? 0), 0);
}

export interface RssNumbers {
  readonly beforeMb: number;
  readonly afterMb: number;
  /** The lowest and highest reading from the warm-up's end to the last run. */
  readonly minMb: number;
  readonly maxMb: number;
  readonly runs: number;
}

export async function runRssBench(runs: number, isolateReuse: "user" | "never"): Promise<RssNumbers> {
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
    const readings = [beforeMb];
    const tenth = Math.ceil(runs / 10);
    for (let done = 0; done < runs; done += tenth) {
      await batch(Math.min(tenth, runs - done));
      readings.push(workerRssMb());
    }
    return { beforeMb, afterMb: readings.at(-1)!, minMb: Math.min(...readings), maxMb: Math.max(...readings), runs };
  } finally {
    await pool.close();
  }
}

if (import.meta.main) {
  const runs = Number(process.argv[2] ?? 10_000);
  for (const mode of ["never", "user"] as const) {
    const { beforeMb, afterMb, minMb, maxMb } = await runRssBench(runs, mode);
    console.log(`${mode}: worker RSS ${beforeMb.toFixed(0)} → ${afterMb.toFixed(0)} MB over ${runs} runs (${minMb.toFixed(0)}–${maxMb.toFixed(0)} MB on the way)`);
  }
}
