/**
 * Why: one run = one fresh context (in a never-used isolate, or in an isolate that served only
 * this user's earlier runs: see isolate-homes.ts). This file owns the run's lifecycle: it takes
 * the context, links and evaluates the user module through the linker, enforces the CPU budget
 * (isolate.cpuTime, polled) and the wall deadline, and settles the run exactly once. After
 * settling, the run is *clean* only if it ended normally (a result or an ordinary tool error, no
 * limit tripped), no knot:plugin call is pending and every isolate task has come back: then the
 * context is released and the isolate may serve the user's next run. Anything else disposes the
 * isolate; if an isolate task still has not come back a second later, the isolate could not be
 * stopped (e.g. spinning inside a builtin) and the worker reports itself stuck so the pool kills
 * the whole process.
 */
import type { RunEvent, RunJob } from "../protocol.ts";
import { safeError } from "../errors.ts";
import type { WorkerVerdict } from "../ipc.ts";
import type { FreshContext } from "./fresh-context.ts";
import type { ContextLease } from "./isolate-homes.ts";
import { EMIT_KINDS } from "../guest/bindings.ts";
import { createGuestBindings } from "./guest-bindings.ts";
import type { Isolate } from "./ivm.ts";
import { RUN_TOOL_MODULE } from "./guest-code.ts";
import { createLinker, missingExportError } from "./linker.ts";
import { deliverPayload, performLoopbackCall, type LoopbackRequest } from "./loopback.ts";
import { clipUtf8, createRunLog } from "./run-log.ts";
import { classifyThrown } from "./thrown.ts";

const STUCK_AFTER_MS = 1_000;
/** How long a settled run's last isolate task may take to come back and still count as clean. */
const CLEAN_WAIT_MS = 50;
/** Outcomes after which the isolate may serve the same user again: nothing was cut short. */
const CLEAN_CODES: ReadonlySet<string> = new Set(["TOOL_ERROR", "SYNTAX_ERROR", "MODULE_NOT_ALLOWED", "PERMISSION_DENIED", "NOT_ADDRESSABLE", "LOOPBACK_FAILED"]);

export interface RunEnvironment {
  takeContext(memoryMb: number): Promise<ContextLease>;
  resolveModule(specifier: string): Promise<string | null>;
  onEvent(event: RunEvent): void;
  /** Called before the run does anything outside its isolate (a knot:plugin call). */
  beforeEffect(): void;
  /** An isolate could not be stopped: the worker process must be replaced. */
  onStuck(reason: string): void;
}

export interface RunHandle {
  readonly verdict: Promise<WorkerVerdict>;
  /** The context is released and its isolate kept or disposed (after the verdict). */
  readonly ended: Promise<void>;
  /** Stops the run; it ends CANCELLED with this message. */
  cancel(message?: string): void;
  /** Settled, but an isolate task has not come back since dispose (a stuck isolate grows on). */
  readonly lingering: boolean;
  /** The isolate's heap + external bytes at the last sample (an isolate busy in a task answers late). */
  readonly heapBytes: number;
  /** Asks the isolate for its heap size; resolves true when it answered within `waitMs` (false: busy). */
  sampleHeap(waitMs: number): Promise<boolean>;
}

export function startRun(job: RunJob, env: RunEnvironment): RunHandle {
  const startedAt = Date.now();
  const { limits } = job;
  /** Made with the run's first knot:plugin call: aborting one costs a DOMException with a stack, every run. */
  let calls: AbortController | undefined;
  const log = createRunLog(limits.logBytes, env.onEvent);
  const codedMessages = new Map<string, string>();
  let resolveVerdict!: (verdict: WorkerVerdict) => void;
  const verdict = new Promise<WorkerVerdict>((resolve) => (resolveVerdict = resolve));
  let settled = false;
  let fresh: FreshContext | undefined;
  let lease: ContextLease | undefined;
  /** Releases the run's module handles (they would pin the context in a kept isolate). */
  const runModules: Array<() => void> = [];
  let callsPending = 0;
  let leftCalls = 0;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  let finalVerdict: WorkerVerdict | undefined;
  let isolate: Isolate | undefined;
  let cpuAtStart = 0n;
  let disposedByUs = false;
  let inFlight = 0;
  /** An isolate task of this run failed (see track): no synchronous call goes into the isolate after it. */
  let taskFailed = false;
  /** Set while a settled run waits for its last isolate task (see endLease). */
  let onIdle: (() => void) | undefined;
  let heapBytes = 0;
  let sampling = false;

  const wallTimer = setTimeout(
    () => settle({ ok: false, error: safeError("TOOL_TIMEOUT", `the tool did not finish within ${limits.wallMs} ms`) }),
    limits.wallMs,
  );
  const cpuBudgetNs = BigInt(limits.cpuMs) * 1_000_000n;
  const cpuTimer = setInterval(checkCpu, Math.max(5, Math.min(100, Math.floor(limits.cpuMs / 5))));

  function checkCpu(): void {
    if (isolate === undefined || settled) return;
    if (isolate.isDisposed) return settleMemory();
    if (isolate.cpuTime - cpuAtStart > cpuBudgetNs) {
      settle({ ok: false, error: safeError("CPU_LIMIT", `the tool used more than ${limits.cpuMs} ms of CPU time`) });
    }
  }

  /**
   * The linker's parsing ran on the worker's thread, outside isolate.cpuTime: it counts as the run's
   * CPU (the next check sees it). Below a millisecond it is not worth a BigInt.
   */
  function chargeRewrite(ms: number): void {
    if (ms >= 1) cpuAtStart -= BigInt(Math.round(ms * 1_000_000));
  }

  function settleMemory(): void {
    settle({ ok: false, error: safeError("MEMORY_LIMIT", `the tool went over its memory limit of ${limits.heapMb} MB`) });
  }

  function settle(final: WorkerVerdict): void {
    if (settled) return;
    settled = true;
    clearTimeout(wallTimer);
    clearInterval(cpuTimer);
    calls?.abort();
    const printed = log.printed();
    // A knot:plugin call still open now is work left behind (aborting it settles it at once).
    leftCalls = callsPending;
    // Printed output stands in for a result only within the result budget too.
    finalVerdict = final.ok && final.result.kind === "none" && printed !== undefined ? { ok: true, result: { kind: "text", text: clipUtf8(printed, limits.resultBytes) } } : final;
    lease?.settled();
    resolveVerdict(finalVerdict);
    setImmediate(endLease);
  }

  function endedClean(): boolean {
    if (taskFailed) return false;
    const ended = finalVerdict;
    if (ended === undefined || (!ended.ok && !CLEAN_CODES.has(ended.error.code))) return false;
    return leftCalls === 0 && inFlight === 0 && isolate !== undefined && !isolate.isDisposed;
  }

  /** Waits (briefly) for the last isolate task to come back, then keeps or disposes the isolate. */
  function endLease(): void {
    if (lease === undefined) return resolveEnded();
    const candidate = finalVerdict !== undefined && (finalVerdict.ok || CLEAN_CODES.has(finalVerdict.error.code)) && leftCalls === 0;
    if (!candidate || inFlight === 0) return finishLease();
    // Usually the evaluate task that reported the verdict: it comes back within microseconds.
    const giveUp = setTimeout(() => {
      onIdle = undefined;
      finishLease();
    }, CLEAN_WAIT_MS);
    onIdle = () => {
      onIdle = undefined;
      clearTimeout(giveUp);
      finishLease();
    };
  }

  function finishLease(): void {
    const taken = lease;
    if (taken === undefined) return resolveEnded();
    lease = undefined;
    const clean = endedClean();
    if (!clean) disposedByUs = true;
    for (const release of runModules.splice(0)) release();
    taken.release(clean);
    resolveEnded();
    if (!clean && inFlight > 0) {
      setTimeout(() => {
        if (inFlight > 0) env.onStuck(`run ${job.runId}: the isolate did not stop after dispose`);
      }, STUCK_AFTER_MS).unref();
    }
  }

  /**
   * Every isolate operation goes through here, so a stuck one is noticed. A task that failed may
   * have left microtasks behind: isolated-vm copies the thrown value after the task's own microtask
   * checkpoint, and a getter on it can queue more. Any later synchronous call into the isolate would
   * run them on this thread, outside the CPU and wall limits, so after a failed task none is made:
   * the error decides the run, and the isolate is disposed (endedClean).
   */
  async function track<T>(operation: Promise<T>): Promise<T> {
    inFlight += 1;
    try {
      return await operation;
    } catch (error) {
      taskFailed = true;
      throw error;
    } finally {
      inFlight -= 1;
      if (inFlight === 0) {
        if (!taskFailed) collectFinished();
        onIdle?.();
      }
    }
  }

  /**
   * The guest leaves its verdict for us (runtime.ts finish): read it once no isolate task is running,
   * with a sync call — the isolate is idle then, so the call cannot wait on user code.
   */
  function collectFinished(): void {
    if (settled || fresh === undefined || isolate === undefined || isolate.isDisposed) return;
    let payload: unknown;
    try {
      payload = fresh.guest.takeFinished.applySync(undefined, []);
    } catch {
      return; // the isolate failed: the task's own error decides the run
    }
    if (typeof payload === "string" && payload !== "") bindings.emit(EMIT_KINDS.finish, payload);
  }

  /**
   * An isolate task failed: an uncaught throw (maybe after an await), the memory limit, or our own
   * dispose. The guest may have left a verdict first (a limit it hit ends the run with a throw, or a
   * return* before the throw: the last return* is the answer, as when the handler ends); it
   * is read with an asynchronous call, on the isolate's thread under the run's limits (see track).
   */
  function onTaskError(error: unknown): void {
    if (settled) return;
    if (isolate?.isDisposed === true && !disposedByUs) return settleMemory();
    void readVerdictAfterFailure().then(() => {
      if (settled) return;
      if (isolate?.isDisposed === true && !disposedByUs) return settleMemory();
      settle({ ok: false, error: classifyThrown(error, codedMessages, limits) });
    });
  }

  async function readVerdictAfterFailure(): Promise<void> {
    if (fresh === undefined || isolate === undefined || isolate.isDisposed) return;
    try {
      const payload: unknown = await track(fresh.guest.takeFinished.apply(undefined, [true]));
      if (!settled && typeof payload === "string" && payload !== "") bindings.emit(EMIT_KINDS.finish, payload);
    } catch {
      // the isolate failed again (disposed by a limit meanwhile): the limit or the first error decides
    }
  }

  /** Hands the guest a call's answer or refusal: an asynchronous task, under the run's limits. */
  function deliver(id: string, payload: string): void {
    if (settled || fresh === undefined) return;
    track(fresh.guest.deliver.apply(undefined, [id, payload])).catch(onTaskError);
  }

  function startCall(id: string, request: LoopbackRequest): void {
    const target = job.loopback;
    if (target === null) throw new Error("no loopback");
    if (settled) throw new Error("the run has ended"); // its calls were aborted at settle
    callsPending += 1;
    env.beforeEffect();
    const remainingMs = Math.max(1, limits.wallMs - (Date.now() - startedAt));
    void performLoopbackCall(request, {
      target,
      requestId: job.requestId,
      signal: (calls ??= new AbortController()).signal,
      // A grace past the run's own deadline: the wall clock ends the run (TOOL_TIMEOUT) and aborts
      // this request first, so a slow handler never surfaces as a coarse HTTP timeout instead.
      timeoutMs: remainingMs + 1_000,
      maxResponseBytes: Math.max(65_536, Math.min(16 * 1_048_576, (limits.heapMb * 1_048_576) / 4)),
    }).then((payload) => {
      callsPending -= 1;
      deliver(id, payload);
    });
  }

  const bindings = createGuestBindings({
    job,
    log,
    onEvent: env.onEvent,
    codedMessages,
    isSettled: () => settled,
    settle,
    startCall,
    refuseCall: (id, code, message) => deliver(id, deliverPayload.error(code, message)),
  });

  async function execute(): Promise<void> {
    const taken = await track(env.takeContext(limits.heapMb));
    if (settled) {
      taken.release(false);
      return resolveEnded();
    }
    lease = taken;
    fresh = taken.fresh;
    isolate = fresh.isolate;
    cpuAtStart = isolate.cpuTime;
    const { context, guest } = fresh;
    const jobData = JSON.stringify({ entry: job.entry ?? "tool", params: job.params, user: job.user, limits: { resultBytes: limits.resultBytes, logBytes: limits.logBytes, loopbackCalls: limits.loopbackCalls } });
    fresh.begin(bindings, jobData);

    // Compiling and linking run no user code: isolated-vm's sync calls skip a thread hop each.
    // The one asynchronous task is the evaluation, where user code runs under the CPU and wall limits.
    const linker = createLinker({ isolate, guestModule: guest.module, shipped: job.modules, resolveSource: env.resolveModule });
    runModules.push(() => linker.release());
    let toolModule;
    try {
      toolModule = await linker.link(job.source, job.filename, context);
    } catch (error) {
      if (linker.failure !== undefined) return settle({ ok: false, error: linker.failure });
      const missing = missingExportError(error);
      if (missing !== undefined) return settle({ ok: false, error: missing });
      throw error;
    }
    chargeRewrite(linker.rewriteMs);
    if (settled) return;
    // Compiled with the context, ahead of the run (fresh-context.ts); linked to this run's tool here.
    const { entry } = fresh;
    const internal = { "knot-internal:tool": toolModule, [RUN_TOOL_MODULE]: guest.module(RUN_TOOL_MODULE) };
    entry.instantiateSync(context, (specifier) => internal[specifier as keyof typeof internal]);
    guest.seal();
    try {
      await track(entry.evaluate());
    } catch (error) {
      onTaskError(error);
    }
  }

  execute().catch((error: unknown) => {
    if (settled) return;
    if (isolate?.isDisposed === true && !disposedByUs) return settleMemory();
    settle({ ok: false, error: safeError("INTERNAL", `the run could not start: ${error instanceof Error ? error.message : String(error)}`) });
  });

  return {
    verdict,
    ended,
    cancel: (message = "the run was cancelled") => settle({ ok: false, error: safeError("CANCELLED", message) }),
    get lingering() {
      return settled && inFlight > 0;
    },
    get heapBytes() {
      return heapBytes;
    },
    sampleHeap(waitMs) {
      if (isolate === undefined || isolate.isDisposed) return Promise.resolve(true);
      if (sampling) return Promise.resolve(false);
      sampling = true;
      const sampled = isolate.getHeapStatistics().then(
        (stats) => {
          sampling = false;
          heapBytes = stats.used_heap_size + stats.externally_allocated_size;
          return true;
        },
        () => !(sampling = false),
      );
      return Promise.race([sampled, new Promise<boolean>((resolve) => setTimeout(resolve, waitMs, false).unref())]);
    },
  };
}
