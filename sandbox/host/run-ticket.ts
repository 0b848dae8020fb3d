/**
 * One run as the pool sees it: the job, the caller's hooks, the log gathered from the worker's
 * events (so a run whose worker dies still answers with what it printed), and the one-time
 * completion into a RunOutcome.
 */
import type { LogLine, RunEvent, RunHooks, RunJob, RunOutcome } from "../protocol.ts";
import { isSandboxErrorCode, safeError, type SandboxErrorCode } from "../errors.ts";
import type { WorkerVerdict } from "../ipc.ts";

export interface RunTicket {
  readonly job: RunJob;
  readonly hooks: RunHooks;
  readonly done: boolean;
  /** A timer the pool set for this run (deadline, cancel grace); cleared on completion. */
  addTimer(timer: NodeJS.Timeout): void;
  /** Dispatched to a worker: timing starts, and the worker has not acknowledged it yet. */
  markDispatched(): void;
  /** The worker acknowledged the run (its code has run); `effect`: it has called a plugin. */
  markAcknowledged(effect?: boolean): void;
  readonly acknowledged: boolean;
  /** It has called a plugin (an effect outside its isolate): it is never run again. */
  readonly hadEffects: boolean;
  /**
   * Back to the queue (its worker died before acknowledging, or for another user's run): drop this
   * dispatch's timers and log; an acknowledged run counts towards `requeues`.
   */
  markRequeued(): void;
  /** How often this run was handed back after its worker had acknowledged it. */
  readonly requeues: number;
  /** How often this run was sent to a worker. */
  readonly dispatches: number;
  event(event: unknown): void;
  complete(verdict: WorkerVerdict): void;
  fail(code: SandboxErrorCode, message: string): void;
}

const LEVELS = new Set(["debug", "info", "warn", "error"]);

/** Events come from a worker process: keep only well-formed ones. */
function checkEvent(value: unknown): RunEvent | undefined {
  const event = value as Record<string, unknown> | null;
  if (typeof event !== "object" || event === null) return undefined;
  if (event.type === "log" && typeof event.level === "string" && LEVELS.has(event.level) && typeof event.message === "string") {
    return { type: "log", level: event.level as LogLine["level"], message: event.message };
  }
  if (event.type === "progress" && typeof event.done === "number") {
    return {
      type: "progress",
      done: event.done,
      ...(typeof event.total === "number" ? { total: event.total } : {}),
      ...(typeof event.message === "string" ? { message: event.message } : {}),
    };
  }
  return undefined;
}

const RESULT_KINDS = new Set(["text", "json", "toon", "content", "none"]);

/** A verdict comes from a worker process (which runs untrusted code): check its outline. */
function checkVerdict(value: unknown): WorkerVerdict {
  const verdict = value as Record<string, unknown> | null;
  if (verdict?.ok === true) {
    const result = verdict.result as Record<string, unknown> | null;
    if (typeof result === "object" && result !== null && RESULT_KINDS.has(String(result.kind))) return verdict as unknown as WorkerVerdict;
  } else if (verdict?.ok === false) {
    const error = verdict.error as Record<string, unknown> | null;
    if (typeof error === "object" && error !== null && isSandboxErrorCode(error.code) && typeof error.message === "string") {
      return { ok: false, error: safeError(error.code, error.message) };
    }
  }
  return { ok: false, error: safeError("INTERNAL", "the sandbox worker sent a malformed verdict") };
}

export function createRunTicket(job: RunJob, hooks: RunHooks, resolve: (outcome: RunOutcome) => void, onDone: () => void): RunTicket {
  const log: LogLine[] = [];
  const timers: NodeJS.Timeout[] = [];
  let startedAt = Date.now();
  let done = false;
  let acknowledged = false;
  let hadEffects = false;
  let requeues = 0;
  let dispatches = 0;

  function complete(raw: WorkerVerdict): void {
    if (done) return;
    done = true;
    const verdict = checkVerdict(raw);
    for (const timer of timers) clearTimeout(timer);
    const durationMs = Date.now() - startedAt;
    resolve(
      verdict.ok
        ? { ok: true, result: verdict.result, log: Object.freeze(log), durationMs }
        : { ok: false, error: verdict.error, log: Object.freeze(log), durationMs },
    );
    onDone();
  }

  return {
    job,
    hooks,
    get done() {
      return done;
    },
    addTimer(timer) {
      timers.push(timer);
    },
    markDispatched() {
      dispatches += 1;
      startedAt = Date.now();
      acknowledged = false;
      hooks.onDispatch?.();
    },
    markAcknowledged(effect = false) {
      acknowledged = true;
      if (effect) hadEffects = true;
    },
    get acknowledged() {
      return acknowledged;
    },
    get hadEffects() {
      return hadEffects;
    },
    markRequeued() {
      for (const timer of timers.splice(0)) clearTimeout(timer);
      if (acknowledged) requeues += 1;
      acknowledged = false;
      log.length = 0;
    },
    get requeues() {
      return requeues;
    },
    get dispatches() {
      return dispatches;
    },
    event(value) {
      const event = done ? undefined : checkEvent(value);
      if (event === undefined) return;
      if (event.type === "log") log.push({ level: event.level, message: event.message });
      try {
        hooks.onEvent?.(event);
      } catch {
        // a failing observer must not break the run
      }
    },
    complete,
    fail(code, message) {
      complete({ ok: false, error: safeError(code, message) });
    },
  };
}
