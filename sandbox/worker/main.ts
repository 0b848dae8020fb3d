/**
 * The sandbox worker process (forked by the pool, see sandbox/host). It holds isolates; the server
 * never does. It talks to the pool over IPC with JSON messages: runs in, events/verdicts out, a
 * heartbeat with its memory use every heartbeatMs. On anything it cannot recover from (an isolate
 * that will not stop, a catastrophic V8 error, an uncaught exception) it reports `fatal` and the
 * pool kills and replaces it.
 */
import { flushCompileCache } from "node:module";
import type { RunEvent, RunJob } from "../protocol.ts";
import { safeError } from "../errors.ts";
import type { HostToWorker, WorkerToHost } from "../ipc.ts";
import { closeHttp } from "./http-client.ts";
import { isolateSettings, resolvePoolOptions } from "../host/options.ts";
import { createIsolateHomes, type HomeSettings } from "./isolate-homes.ts";
import { homeOwner } from "./home-owner.ts";
import { createShedGate } from "./shed-gate.ts";
import { loadGuestCode } from "./guest-code.ts";
import { startRun, type RunHandle } from "./run.ts";
import { DEFAULT_RUN_LIMITS, isModuleSet, isRunEntry, isSinkEvent } from "../protocol.ts";

// argv (set by sandbox/host/worker-process.ts): [2] heartbeat in ms; [3] JSON isolate settings
// { reuse: "user" | "never", maxRuns, idleMs, maxIdle, shedAboveMb } (see isolate-homes.ts); [4] the guest
// bundle (sandbox/host/guest-bundle.ts).
const heartbeatMs = Math.max(50, Number(process.argv[2] ?? 1_000) || 1_000);
const runs = new Map<string, RunHandle>();
/** Settled runs whose isolate has not stopped yet: the first to blame for memory growth. */
const lingering = new Map<string, RunHandle>();
const moduleWaiters = new Map<number, (reply: { source: string | null; failed: boolean }) => void>();
let nextRequestId = 1;

function send(message: WorkerToHost): void {
  if (process.connected) process.send?.(message, undefined, undefined, () => undefined);
}

function fatal(reason: string, runId?: string): void {
  send(runId === undefined ? { t: "fatal", reason } : { t: "fatal", reason, runId });
  // The pool kills us on `fatal`; if it cannot, do not linger with a runaway isolate.
  setTimeout(() => process.kill(process.pid, "SIGKILL"), 2_000).unref();
}

process.on("uncaughtException", (error) => fatal(`uncaught exception: ${error.message}`));
process.on("unhandledRejection", (error) => fatal(`unhandled rejection: ${error instanceof Error ? error.message : String(error)}`));
process.on("disconnect", () => process.exit(0));
// Ctrl-C in a terminal signals the whole process group: the host decides when workers stop (it
// drains runs on shutdown, and a lost parent disconnects us), so the worker ignores it.
process.on("SIGINT", () => {});

const guestCode = loadGuestCode(process.argv[4] ?? "");
const homeSettings = parseHomeSettings(process.argv[3]);
const homes = createIsolateHomes(guestCode, homeSettings, (message) => fatal(`catastrophic isolate error: ${message}`));

/** The host's isolate settings; any missing or malformed field takes the pool's default. */
function parseHomeSettings(text: string | undefined): HomeSettings {
  // Worked out only when needed: the host sends every field.
  const fallback = (): HomeSettings => isolateSettings(resolvePoolOptions());
  let given: Partial<Record<keyof HomeSettings, unknown>>;
  try {
    given = JSON.parse(text ?? "{}") as typeof given;
  } catch {
    return fallback();
  }
  if (typeof given !== "object" || given === null) return fallback();
  const integer = (name: "maxRuns" | "idleMs" | "maxIdle" | "shedAboveMb"): number =>
    Number.isInteger(given[name]) ? (given[name] as number) : fallback()[name];
  return {
    reuse: given.reuse === "never" ? "never" : "user",
    maxRuns: integer("maxRuns"),
    idleMs: integer("idleMs"),
    maxIdle: integer("maxIdle"),
    shedAboveMb: integer("shedAboveMb"),
  };
}

function resolveModule(runId: string, specifier: string): Promise<string | null> {
  const reqId = nextRequestId++;
  return new Promise((resolve, reject) => {
    moduleWaiters.set(reqId, (reply) => (reply.failed ? reject(new Error(`resolving ${specifier} failed`)) : resolve(reply.source)));
    send({ t: "resolve", runId, reqId, specifier });
  });
}

function isJob(value: unknown): value is RunJob {
  const job = value as RunJob | null;
  return (
    typeof job === "object" && job !== null &&
    typeof job.runId === "string" && typeof job.source === "string" && typeof job.filename === "string" &&
    typeof job.params === "object" && typeof job.user === "object" && typeof job.limits === "object" &&
    (job.modules === undefined || isModuleSet(job.modules)) &&
    (job.entry === undefined || (isRunEntry(job.entry) && (job.entry === "tool" || isSinkEvent(job.params))))
  );
}

/** A run still going after this long is acknowledged even if it has had no effect yet. */
const ACK_AFTER_MS = 5;
/**
 * A run shipping this much code is acknowledged before it links: linking holds our thread (the ack
 * timer cannot fire), and if we die meanwhile the pool must not re-run it on another worker.
 */
const ACK_BEFORE_LINK_CHARS = 64 * 1024;

/** Characters of code the job brings (the tool and its shipped modules), counted until `enough`. */
function shippedChars(job: RunJob, enough: number): number {
  let chars = job.source.length;
  for (const source of Object.values(job.modules ?? {})) {
    if (chars >= enough) break;
    chars += source?.length ?? 0;
  }
  return chars;
}

function onRun(job: unknown): void {
  if (!isJob(job)) return fatal("received a malformed job");
  if (runs.has(job.runId)) {
    send({ t: "done", runId: job.runId, verdict: { ok: false, error: safeError("INTERNAL", "duplicate run id") } });
    return;
  }
  const runId = job.runId;
  let reused = false;
  let answered = false;
  let acknowledged = false;
  // One message in, one out for a run that ends quickly without effects: the acknowledgement
  // ("user code has run") goes out only before the run's first knot:plugin call, with its first
  // events, or once it has run ACK_AFTER_MS; the verdict implies it.
  const acknowledge = (): void => {
    if (acknowledged || answered) return;
    acknowledged = true;
    clearTimeout(ackTimer);
    send({ t: "started", runId });
  };
  const ackTimer = setTimeout(acknowledge, ACK_AFTER_MS);
  if (shippedChars(job, ACK_BEFORE_LINK_CHARS) >= ACK_BEFORE_LINK_CHARS) acknowledge();
  // Before the first knot:plugin call: the host must know the run has had an effect outside its
  // isolate, so that it never runs it again when another run costs this worker (worker-slot.ts).
  let effectful = false;
  const beforeEffect = (): void => {
    if (effectful || answered) return;
    effectful = true;
    acknowledged = true;
    clearTimeout(ackTimer);
    send({ t: "started", runId, effect: true });
  };
  // Events go out batched, one message per event-loop turn, and always before the verdict.
  let batch: RunEvent[] = [];
  const flushEvents = (): void => {
    if (batch.length === 0) return;
    acknowledged = true;
    clearTimeout(ackTimer);
    send({ t: "events", runId, events: batch });
    batch = [];
  };
  const handle = startRun(job, {
    takeContext: (memoryMb) =>
      homes.take(homeOwner(job), memoryMb).then((lease) => {
        reused = lease.reused;
        return lease;
      }),
    resolveModule: (specifier) => resolveModule(runId, specifier),
    onEvent: (event) => batch.push(event) === 1 && setImmediate(flushEvents),
    beforeEffect,
    onStuck: (reason) => fatal(reason, runId),
  });
  runs.set(runId, handle);
  // The verdict goes out at once; a clean isolate is parked right after, and the user's next run
  // waits for that instead of taking a new isolate (isolate-homes.ts).
  void handle.verdict.then((verdict) => {
    flushEvents();
    answered = true;
    clearTimeout(ackTimer);
    send({ t: "done", runId, verdict, ...(reused ? { reused } : {}) });
  });
  void handle.ended.then(() => {
    runs.delete(runId);
    lingering.set(runId, handle);
    setImmediate(() => homes.warm(job.limits.heapMb));
  });
}

process.on("message", (raw: unknown) => {
  const message = raw as HostToWorker;
  switch (message?.t) {
    case "run":
      return onRun(message.job);
    case "cancel":
      return runs.get(message.runId)?.cancel();
    case "module": {
      const waiter = moduleWaiters.get(message.reqId);
      moduleWaiters.delete(message.reqId);
      return waiter?.({ source: typeof message.source === "string" ? message.source : null, failed: message.failed === true });
    }
    case "shutdown":
      for (const handle of runs.values()) handle.cancel("the run was stopped: the sandbox shut down (the server is stopping) before it finished");
      homes.close();
      void closeHttp().finally(() => process.exit(0));
      return;
    default:
      return undefined;
  }
});

/**
 * The run to blame if the pool finds us over our memory budget: a settled run whose isolate has
 * not stopped; else the one run too busy to report its heap (a builtin that ignores the heap
 * limit); else, when no isolate is busy, the live run with the largest heap. The pool fails only that
 * run's user's runs and re-queues everyone else's (issue 10, root cause 8).
 */
async function suspect(): Promise<string | undefined> {
  for (const [runId, handle] of lingering) {
    if (handle.lingering) return runId;
    lingering.delete(runId);
  }
  // A busy isolate answers only between tasks: it keeps its last sample.
  const live = [...runs];
  const answered = await Promise.all(live.map(([, handle]) => handle.sampleHeap(Math.min(100, heartbeatMs / 4))));
  let heaviest: [string, number] | undefined;
  for (const [runId, handle] of live) {
    if (handle.heapBytes > (heaviest?.[1] ?? 0)) heaviest = [runId, handle.heapBytes];
  }
  // A heap that accounts for a good part of our memory is the answer; otherwise the memory is
  // where no sample reaches: a single busy isolate.
  if (heaviest !== undefined && heaviest[1] >= process.memoryUsage.rss() / 4) return heaviest[0];
  const busy = live.filter((_, index) => !answered[index]);
  if (busy.length === 1) return busy[0]?.[0];
  // Unsure (several busy isolates): name nobody; the pool waits a beat before it blames no one.
  return busy.length === 0 ? heaviest?.[0] : undefined;
}

/** Idle isolates disposed per heartbeat past the threshold: each costs the worker's thread ~7–14 ms. */
const SHED_PER_BEAT = 4;
const shedGate = createShedGate(homeSettings.shedAboveMb);
const residentMb = (): number => Math.round(process.memoryUsage.rss() / 1_048_576);

setInterval(() => {
  void suspect().then((blame) => {
    let rssMb = residentMb();
    // Near the budget the oldest warm isolates go: they are a cache, and the pool kills a worker over
    // its budget (blaming a run). The gate keeps RSS's high-water mark from shedding at every beat.
    const shed = shedGate.due(rssMb) && homes.shed(SHED_PER_BEAT) > 0;
    if (shed) rssMb = residentMb();
    shedGate.settle(rssMb, shed);
    send(blame === undefined ? { t: "beat", rssMb } : { t: "beat", rssMb, suspect: blame });
  });
}, heartbeatMs);
homes.warm(DEFAULT_RUN_LIMITS.heapMb);
send({ t: "ready" });
// The compile cache (when the pool gave us one) is written now, not at exit: a killed worker never exits.
setImmediate(flushCompileCache);
