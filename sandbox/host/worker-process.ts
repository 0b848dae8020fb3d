/**
 * Why: the process wall. Isolates live only in these child processes; this file starts one (fork
 * of sandbox/worker/main.ts with `--no-node-snapshot`, a bare environment, JSON IPC), watches its
 * heartbeat and resident memory, and kills it with SIGKILL when it misses ~3 beats, goes over its
 * memory budget, or when the pool asks. Whatever ends it, `onExit` is called once with the cause.
 */
import { fork, type ChildProcess } from "node:child_process";
import { channel } from "node:diagnostics_channel";
import { fileURLToPath } from "node:url";
import type { HostToWorker, WorkerToHost } from "../ipc.ts";
import { workerCompileCacheDir } from "./compile-cache.ts";
import { guestBundle } from "./guest-bundle.ts";
import { isolateSettings, type PoolSettings } from "./options.ts";

const WORKER_MAIN = fileURLToPath(new URL("../worker/main.ts", import.meta.url));
const START_TIMEOUT_MS = 20_000;
const MISSED_BEATS = 3.5;
const STDERR_TAIL_BYTES = 4_096;

/** Published when a worker exits: `{ pid, cause, detail, stderrTail }` (for the host log). */
export const workerExitChannel = channel("knot:sandbox:worker-exit");

export type KillCause = "heartbeat" | "memory" | "fatal" | "deadline" | "cancel" | "start" | "close" | "crash";

export interface WorkerProcess {
  readonly pid: number | undefined;
  readonly ready: boolean;
  send(message: HostToWorker): void;
  /** Asks the worker to exit on its own (the pool is closing); `onExit` then reports "close". */
  shutdown(): void;
  /** `culpritRunId`: the run that made this necessary, when one did (its user alone pays). */
  kill(cause: KillCause, detail: string, culpritRunId?: string): void;
}

export interface WorkerEvents {
  onReady(): void;
  onMessage(message: WorkerToHost): void;
  onExit(cause: KillCause, detail: string, culpritRunId: string | undefined): void;
}

export function spawnWorker(settings: PoolSettings, events: WorkerEvents): WorkerProcess {
  // A bare environment (no secrets). MALLOC_ARENA_MAX: each isolate's thread would otherwise get
  // its own glibc arena, and the worker's RSS climbed on fragmentation alone (issue 13).
  // NODE_COMPILE_CACHE: a replacement worker loads its modules from V8's code cache (compile-cache.ts).
  // Checked at every start (~20 µs): a directory removed meanwhile and planted by someone else is refused.
  const compileCacheDir = workerCompileCacheDir();
  const env: Record<string, string> = {
    MALLOC_ARENA_MAX: "2",
    ...(compileCacheDir !== undefined ? { NODE_COMPILE_CACHE: compileCacheDir } : {}),
    ...(process.env.TZ !== undefined ? { TZ: process.env.TZ } : {}),
  };
  const child: ChildProcess = fork(WORKER_MAIN, [String(settings.heartbeatMs), JSON.stringify(isolateSettings(settings)), guestBundle()], {
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

  function kill(cause: KillCause, detail: string, culpritRunId?: string): void {
    if (exited) return;
    killed ??= { cause, detail, culpritRunId };
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
    shutdown() {
      killed ??= { cause: "close", detail: "the pool was closed" };
      send({ t: "shutdown" });
    },
    kill,
  };
}
