/**
 * Why: the process wall. Isolates live only in these child processes; this file starts one (fork
 * of sandbox/worker/main.ts with `--no-node-snapshot`, a bare environment, JSON IPC), watches its
 * heartbeat and resident memory, and kills it with SIGKILL when it misses ~3 beats, goes over its
 * memory budget, or when the pool asks. Whatever ends it, `onExit` is called once with the cause.
 */
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { channel } from "node:diagnostics_channel";
import { fileURLToPath } from "node:url";
import type { HostToWorker, WorkerToHost } from "../ipc.ts";
import { createSliceRecord, workerCompileCacheDir } from "./worker-files.ts";
import { guestBundle } from "./guest-bundle.ts";
import type { PoolSettings } from "./options.ts";

const WORKER_MAIN = fileURLToPath(new URL("../worker/main.ts", import.meta.url));
const START_TIMEOUT_MS = 20_000;
const MISSED_BEATS = 3.5;
const STDERR_TAIL_BYTES = 4_096;
/** A slice lasts 10 ms at most unless it is stuck; one open this long is (sandbox/worker/sync-slice.ts). */
const STUCK_SLICE_MS = 500;
let compileCache: { dir: string | undefined } | undefined;

/** Published when a worker exits: `{ pid, cause, detail, stderrTail }` (for the host log). */
export const workerExitChannel = channel("knot:sandbox:worker-exit");

export type KillCause = "heartbeat" | "memory" | "fatal" | "deadline" | "cancel" | "start" | "close" | "crash";

export interface WorkerProcess {
  readonly pid: number | undefined;
  readonly ready: boolean;
  send(message: HostToWorker): void;
  /** Asks the worker to exit on its own (the pool is closing); `onExit` then reports "close". */
  shutdown(): void;
  /**
   * `culpritRunId`: the run that made this necessary, when one did (its user alone pays). A run
   * stuck in a synchronous slice (sliceHolder) is the culprit of a heartbeat, deadline or cancel kill.
   */
  kill(cause: KillCause, detail: string, culpritRunId?: string): void;
  /** The run whose slice has held the worker's thread far longer than a slice lasts, if any. */
  sliceHolder(): string | undefined;
}

export interface WorkerEvents {
  onReady(): void;
  onMessage(message: WorkerToHost): void;
  onExit(cause: KillCause, detail: string, culpritRunId: string | undefined): void;
}

export function spawnWorker(settings: PoolSettings, events: WorkerEvents): WorkerProcess {
  // A bare environment (no secrets). MALLOC_ARENA_MAX: each isolate's thread would otherwise get
  // its own glibc arena, and the worker's RSS climbed on fragmentation alone (issue 13).
  // NODE_COMPILE_CACHE: a replacement worker loads its modules from V8's code cache (worker-files.ts).
  compileCache ??= { dir: workerCompileCacheDir() };
  const env: Record<string, string> = {
    MALLOC_ARENA_MAX: "2",
    ...(compileCache.dir !== undefined ? { NODE_COMPILE_CACHE: compileCache.dir } : {}),
    ...(process.env.TZ !== undefined ? { TZ: process.env.TZ } : {}),
  };
  const isolates = { reuse: settings.isolateReuse, maxRuns: settings.isolateMaxRuns, idleMs: settings.isolateIdleMs, maxIdle: settings.isolateMaxIdle };
  // Which run holds the worker's thread in a synchronous slice: read when the thread stops answering.
  const sliceRecord = createSliceRecord();
  const child: ChildProcess = fork(WORKER_MAIN, [String(settings.heartbeatMs), JSON.stringify(isolates), guestBundle(), sliceRecord ?? ""], {
    execPath: process.execPath,
    execArgv: [...settings.execArgv],
    env,
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    serialization: "json",
  });
  const spawnedAt = Date.now();
  let ready = false;
  let lastBeatAt = spawnedAt;
  let killed: { cause: KillCause; detail: string; culpritRunId?: string | undefined } | undefined;
  let exited = false;
  let stderrTail = "";
  let overBudgetBeats = 0;

  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL_BYTES);
  });

  function send(message: HostToWorker): void {
    if (!exited && child.connected) child.send(message, (error) => error && kill("crash", "the IPC channel failed"));
  }

  const sliceHolder = (): string | undefined => runInSlice(sliceRecord, STUCK_SLICE_MS);

  function kill(cause: KillCause, detail: string, culpritRunId?: string): void {
    if (exited) return;
    // A thread held this long by one run's slice is that run's doing: a deadline or a cancel that
    // came due meanwhile (another run could not finish while the thread was held) blames it instead.
    const holder = cause === "heartbeat" || cause === "deadline" || cause === "cancel" ? sliceHolder() : undefined;
    killed ??= { cause, detail, culpritRunId: holder ?? culpritRunId };
    child.kill("SIGKILL");
  }

  const watch = setInterval(() => {
    const now = Date.now();
    if (!ready && now - spawnedAt > START_TIMEOUT_MS) kill("start", "the worker did not start in time");
    if (ready && now - lastBeatAt > settings.heartbeatMs * MISSED_BEATS) kill("heartbeat", "the worker missed its heartbeats");
  }, settings.heartbeatMs);

  child.on("message", (raw: unknown) => {
    const message = raw as WorkerToHost;
    if (typeof message !== "object" || message === null || typeof message.t !== "string") return;
    lastBeatAt = Date.now();
    if (message.t === "beat") {
      if (typeof message.rssMb === "number" && message.rssMb > settings.workerMemoryMb) {
        // Without a suspect (two busy isolates: neither can be sampled) wait one beat for one.
        const suspect = typeof message.suspect === "string" ? message.suspect : undefined;
        overBudgetBeats += 1;
        if (suspect !== undefined || overBudgetBeats >= 2) {
          kill("memory", `the worker used ${message.rssMb} MB, over its budget of ${settings.workerMemoryMb} MB`, suspect);
        }
      } else {
        overBudgetBeats = 0;
      }
      return;
    }
    if (message.t === "ready") {
      ready = true;
      events.onReady();
      return;
    }
    events.onMessage(message);
  });

  child.on("error", () => kill("crash", "the worker process failed"));
  child.on("exit", (code, signal) => {
    if (exited) return;
    exited = true;
    clearInterval(watch);
    if (sliceRecord !== undefined) fs.rm(sliceRecord, { force: true }, () => undefined);
    const ending = killed ?? { cause: "crash" as const, detail: `the worker exited (${signal ?? `code ${code}`})` };
    if (workerExitChannel.hasSubscribers) {
      workerExitChannel.publish({ pid: child.pid, cause: ending.cause, detail: ending.detail, stderrTail });
    }
    events.onExit(ending.cause, ending.detail, killed?.culpritRunId);
  });

  return {
    get pid() {
      return child.pid;
    },
    get ready() {
      return ready && !exited;
    },
    send,
    sliceHolder,
    shutdown() {
      killed ??= { cause: "close", detail: "the pool was closed" };
      send({ t: "shutdown" });
    },
    kill,
  };
}

/**
 * The run whose synchronous slice has held the worker's thread for at least `minAgeMs`, from the
 * worker's slice record (sandbox/worker/sync-slice.ts): `in <startedAtMs> <runId>` while a slice
 * runs, `out` after. A thread stuck there is that run's doing (an isolate stuck in a builtin that
 * ignores termination).
 */
export function runInSlice(recordPath: string | undefined, minAgeMs: number, now: number = Date.now()): string | undefined {
  if (recordPath === undefined) return undefined;
  try {
    const match = /^in (\d+) ([^\n]+)\n/.exec(fs.readFileSync(recordPath, "utf8"));
    if (match === null || now - Number(match[1]) < minAgeMs) return undefined;
    return match[2];
  } catch {
    return undefined;
  }
}
