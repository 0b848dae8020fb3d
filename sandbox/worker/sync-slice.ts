/**
 * Why: an asynchronous isolated-vm call hops to the isolate's thread and back, two thread wakes
 * that cost ~100 µs on this kind of machine, while the same evaluation made synchronously costs
 * ~8 µs (issue 13). Most tools finish their first evaluation in well under a millisecond, so the
 * runner first evaluates synchronously, on the worker's thread, for at most a short slice
 * (isolated-vm's `timeout`, which covers the microtasks the evaluation queues). While the slice
 * runs nothing leaves the worker (knot:plugin calls and events are held, see run.ts); a slice that
 * times out is thrown away with its isolate and the run starts again from nothing, asynchronously,
 * with the CPU the slice used charged to it. A user whose run overran gets no slice for their next
 * ASYNC_AFTER_OVERRUN runs, whatever the tool: a flood of runs each made to outlast its slice
 * (varying the source to look new) holds the worker's thread once, not once per run.
 *
 * The timeout cannot stop code stuck in a builtin that ignores termination (`new
 * Array(1e9).fill(0)`), and then the worker's own thread is stuck: it can no longer report the
 * culprit. So each slice is written down first in the worker's slice record (a private file the
 * pool made, see sandbox/host/worker-files.ts) with its start, and the pool, when the thread
 * misses its heartbeats or another run's deadline comes due during a hold, reads who holds it
 * there: only that run's user pays, as for an isolate stuck outside a slice. Without a record, runs
 * are evaluated asynchronously only; so are all runs with isolate_reuse "never" (see main.ts).
 */
import fs from "node:fs";
import type { RunJob } from "../protocol.ts";

/** The longest the worker's thread is given to one run's synchronous first evaluation. */
export const SYNC_SLICE_MS = 10;
const ASYNC_AFTER_OVERRUN = 100;
const MAX_REMEMBERED = 1_000;
/** isolated-vm's message for a `timeout`; a tool can throw the same text, hence the elapsed check too. */
const TIMED_OUT = "Script execution timed out.";

/** User id → how many more of their runs are evaluated asynchronously. */
const asyncRunsLeft = new Map<string, number>();

/** The slice this run's first evaluation gets (ms), or 0: evaluate asynchronously. */
export function sliceFor(job: RunJob, elapsedMs: number): number {
  const left = asyncRunsLeft.get(job.user.id);
  if (left !== undefined) {
    if (left <= 1) asyncRunsLeft.delete(job.user.id);
    else asyncRunsLeft.set(job.user.id, left - 1);
    return 0;
  }
  const slice = Math.min(SYNC_SLICE_MS, job.limits.cpuMs, job.limits.wallMs - elapsedMs);
  return slice >= 2 ? Math.floor(slice) : 0;
}

/** Whether a synchronous evaluation that threw `error` after `elapsedMs` ran out of its slice. */
export function ranOutOfSlice(error: unknown, elapsedMs: number, sliceMs: number): boolean {
  return error instanceof Error && error.message === TIMED_OUT && elapsedMs >= sliceMs * 0.9;
}

export function rememberOverrun(job: RunJob): void {
  if (asyncRunsLeft.size >= MAX_REMEMBERED) asyncRunsLeft.clear();
  asyncRunsLeft.set(job.user.id, ASYNC_AFTER_OVERRUN);
}

export interface SliceRecord {
  /** Written before a slice starts (the pool blames `runId` if the thread never comes back); false: no slice. */
  enter(runId: string): boolean;
  leave(): void;
}

/** The slice record at `path` (argv from the pool), or undefined when there is none to write. */
export function openSliceRecord(path: string | undefined): SliceRecord | undefined {
  if (path === undefined || path === "") return undefined;
  let fd: number;
  try {
    fd = fs.openSync(path, "r+");
  } catch {
    return undefined;
  }
  let broken = false;
  const write = (text: string): boolean => {
    if (broken) return false;
    try {
      fs.writeSync(fd, text, 0, "utf8");
      return true;
    } catch {
      broken = true; // no record: no more slices
      return false;
    }
  };
  return {
    enter: (runId) => write(`in ${Date.now()} ${runId}\n`),
    leave: () => void write("out\n"),
  };
}
