/**
 * Why: one run = one fresh isolate, used once and disposed. This file owns the run's lifecycle:
 * it builds the context (bindings, prelude), links and evaluates the user module through the
 * linker, enforces the CPU budget (isolate.cpuTime, polled) and the wall deadline, and settles the
 * run exactly once. After settling, the isolate is disposed; if an isolate task still has not come
 * back a second later, the isolate could not be stopped (e.g. spinning inside a builtin) and the
 * worker reports itself stuck so the pool kills the whole process.
 */
import type { RunEvent, RunJob } from "../protocol.ts";
import { safeError } from "../errors.ts";
import type { WorkerVerdict } from "../ipc.ts";
import type { FreshContext } from "./fresh-context.ts";
import { createGuestBindings } from "./guest-bindings.ts";
import { RETURNED } from "./guest-verdict.ts";
import type { Isolate } from "./ivm.ts";
import { createLinker } from "./linker.ts";
import { performLoopbackCall, type LoopbackRequest } from "./loopback.ts";
import { createRunLog } from "./run-log.ts";
import { classifyThrown } from "./thrown.ts";

const STUCK_AFTER_MS = 1_000;
const ENTRY_SOURCE = 'import * as tool from "knot-internal:tool";\nimport { runTool } from "knot-internal:run-tool";\nrunTool(tool);\n';

export interface RunEnvironment {
  takeContext(memoryMb: number): Promise<FreshContext>;
  resolveModule(specifier: string): Promise<string | null>;
  onEvent(event: RunEvent): void;
  /** An isolate could not be stopped: the worker process must be replaced. */
  onStuck(reason: string): void;
}

export interface RunHandle {
  readonly verdict: Promise<WorkerVerdict>;
  cancel(): void;
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
  const abort = new AbortController();
  const log = createRunLog(limits.logBytes, env.onEvent);
  const codedMessages = new Map<string, string>();
  let resolveVerdict!: (verdict: WorkerVerdict) => void;
  const verdict = new Promise<WorkerVerdict>((resolve) => (resolveVerdict = resolve));
  let settled = false;
  let lastReturn: WorkerVerdict | undefined;
  let fresh: FreshContext | undefined;
  let isolate: Isolate | undefined;
  let cpuAtStart = 0n;
  let disposedByUs = false;
  let inFlight = 0;
  let callSeq = 0;
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

  function settleMemory(): void {
    settle({ ok: false, error: safeError("MEMORY_LIMIT", `the tool went over its memory limit of ${limits.heapMb} MB`) });
  }

  function settle(final: WorkerVerdict): void {
    if (settled) return;
    settled = true;
    clearTimeout(wallTimer);
    clearInterval(cpuTimer);
    abort.abort();
    const printed = log.printed();
    resolveVerdict(final.ok && final.result.kind === "none" && printed !== undefined ? { ok: true, result: { kind: "text", text: printed } } : final);
    setImmediate(disposeIsolate);
  }

  function disposeIsolate(): void {
    if (fresh !== undefined && !fresh.isolate.isDisposed) {
      disposedByUs = true;
      try {
        fresh.deliver.release();
        fresh.dispose();
      } catch {
        // already gone
      }
    }
    if (inFlight > 0) {
      setTimeout(() => {
        if (inFlight > 0) env.onStuck(`run ${job.runId}: the isolate did not stop after dispose`);
      }, STUCK_AFTER_MS).unref();
    }
  }

  /** Every isolate operation goes through here, so a stuck one is noticed. */
  async function track<T>(operation: Promise<T>): Promise<T> {
    inFlight += 1;
    try {
      return await operation;
    } finally {
      inFlight -= 1;
    }
  }

  /** An isolate task failed: an uncaught throw (maybe after an await), the memory limit, or our own dispose. */
  function onTaskError(error: unknown): void {
    if (settled) return;
    if (isolate?.isDisposed === true && !disposedByUs) return settleMemory();
    settle(lastReturn ?? { ok: false, error: classifyThrown(error, codedMessages, limits) });
  }

  function startCall(request: LoopbackRequest): string {
    callSeq += 1;
    const id = `c${callSeq}`;
    const target = job.loopback;
    if (target === null) throw new Error("no loopback");
    const remainingMs = Math.max(1, limits.wallMs - (Date.now() - startedAt));
    void performLoopbackCall(request, {
      target,
      requestId: job.requestId,
      signal: abort.signal,
      // A grace past the run's own deadline: the wall clock ends the run (TOOL_TIMEOUT) and aborts
      // this request first, so a slow handler never surfaces as a coarse HTTP timeout instead.
      timeoutMs: remainingMs + 1_000,
      maxResponseBytes: Math.max(65_536, Math.min(16 * 1_048_576, (limits.heapMb * 1_048_576) / 4)),
    }).then((payload) => {
      if (settled || fresh === undefined) return;
      track(fresh.deliver.apply(undefined, [id, payload])).catch(onTaskError);
    });
    return id;
  }

  const bindings = createGuestBindings({
    job,
    log,
    onEvent: env.onEvent,
    codedMessages,
    isSettled: () => settled,
    setReturned: (returned) => (lastReturn = returned),
    finish: (final) => settle(final === RETURNED ? (lastReturn ?? { ok: true, result: { kind: "none" } }) : final),
    stop: (final) => settle(final),
    startCall,
  });

  async function execute(): Promise<void> {
    const taken = await track(env.takeContext(limits.heapMb));
    if (settled) return void setImmediate(() => taken.dispose());
    fresh = taken;
    isolate = taken.isolate;
    cpuAtStart = isolate.cpuTime;
    const { context, guest } = taken;
    const jobData = JSON.stringify({ params: job.params, user: job.user, limits: { resultBytes: limits.resultBytes, logBytes: limits.logBytes } });
    await track(taken.begin(bindings, jobData));

    const linker = createLinker({ isolate, guestModule: guest.module, resolveSource: env.resolveModule });
    const linkFailure = (): WorkerVerdict => ({ ok: false, error: linker.failure ?? safeError("INTERNAL", "the tool could not be linked") });
    let toolModule;
    try {
      toolModule = await track(linker.compile(job.source, job.filename));
      await track(toolModule.instantiate(context, (specifier) => linker.resolve(specifier)));
    } catch (error) {
      if (linker.failure !== undefined) return settle(linkFailure());
      throw error;
    }
    const entry = await track(isolate.compileModule(ENTRY_SOURCE, { filename: "knot:internal/entry" }));
    const internal = { "knot-internal:tool": toolModule, "knot-internal:run-tool": guest.module("run-tool.ts") };
    await track(entry.instantiate(context, (specifier) => internal[specifier as keyof typeof internal]));
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
    cancel: () => settle({ ok: false, error: safeError("CANCELLED", "the run was cancelled") }),
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
