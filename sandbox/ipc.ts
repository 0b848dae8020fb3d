/**
 * The messages between the pool (server process) and a sandbox worker (child process).
 * JSON only (child_process IPC with "json" serialization); each side checks what it receives.
 * This file imports types only.
 */
import type { RunEvent, RunJob, SafeError, ToolResult } from "./protocol.ts";

/** What a worker decides about a run; the pool adds the log and the duration. */
export type WorkerVerdict =
  | { readonly ok: true; readonly result: ToolResult }
  | { readonly ok: false; readonly error: SafeError };

export type HostToWorker =
  | { readonly t: "run"; readonly job: RunJob }
  | { readonly t: "cancel"; readonly runId: string }
  | { readonly t: "module"; readonly reqId: number; readonly source: string | null; readonly failed?: boolean }
  | { readonly t: "shutdown" };

export type WorkerToHost =
  | { readonly t: "ready" }
  /** `suspect`: the run most likely to blame if the worker is over its memory budget (see main.ts). */
  | { readonly t: "beat"; readonly rssMb: number; readonly suspect?: string }
  /**
   * The run's code has run (sent after a few ms, or before its first knot:plugin call; `events` and
   * `done` imply it): a run never acknowledged by a dying worker is retried. `effect`: it is about
   * to call a plugin (an effect outside its isolate), so it is never run again.
   */
  | { readonly t: "started"; readonly runId: string; readonly effect?: true }
  /** A run's events (log, progress) since the last batch: one message per event-loop turn. */
  | { readonly t: "events"; readonly runId: string; readonly events: readonly RunEvent[] }
  | { readonly t: "resolve"; readonly runId: string; readonly reqId: number; readonly specifier: string }
  /** `reused`: the run's fresh context was made in an isolate that served this user before. */
  | { readonly t: "done"; readonly runId: string; readonly verdict: WorkerVerdict; readonly reused?: boolean }
  /** `runId`: the run whose isolate could not be stopped, when one is to blame. */
  | { readonly t: "fatal"; readonly reason: string; readonly runId?: string };

