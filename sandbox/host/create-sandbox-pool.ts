/**
 * Why: the supervisor of the process wall. Runs wait in per-user lines served round-robin (see
 * fair-queue.ts), and one user has at most `userRunsInFlight` runs dispatched at once, so a flood
 * never holds back another user's first run. Each dispatched run has a hard deadline (wallMs +
 * grace) after which its worker is killed. A worker that dies — killed for a deadline, a missed
 * heartbeat, its memory budget, a `fatal` report, a cancel it did not honour, or a crash — is
 * replaced; worker-slot.ts decides which of its runs fail (the culprit user's) and which go back
 * to the front of their user's line (everyone else's, and any run it never acknowledged).
 *
 * @example
 *   const pool = createSandboxPool({ workers: 2 });
 *   const outcome = await pool.run(job, { resolveModule: () => null });
 *   await pool.close();
 */
import type { RunHooks, RunJob, RunOutcome } from "../protocol.ts";
import { checkJob } from "./check-job.ts";
import { resolvePoolOptions, type SandboxPoolOptions } from "./options.ts";
import { createFairQueue } from "./fair-queue.ts";
import { createRunTicket, type RunTicket } from "./run-ticket.ts";
import { createWorkerSlot, type WorkerSlot } from "./worker-slot.ts";

export interface SandboxPoolStats {
  /** Worker processes ready to serve (a starting replacement is not counted yet). */
  readonly workers: number;
  readonly busy: number;
  readonly queued: number;
  readonly restarts: number;
  /** Workers retired gracefully after `recycleAfterRuns` runs (not counted as restarts). */
  readonly recycled: number;
  /** Runs whose fresh context was made in a warm isolate of the same user (isolateReuse "user"). */
  readonly reusedIsolates: number;
}

export interface SandboxPool {
  run(job: RunJob, hooks: RunHooks): Promise<RunOutcome>;
  stats(): SandboxPoolStats;
  close(): Promise<void>;
}

const MAX_START_FAILURES = 5;
const CLOSE_GRACE_MS = 2_000;

export function createSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  const settings = resolvePoolOptions(options);
  const slots = new Set<WorkerSlot>();
  const queue = createFairQueue();
  const runIds = new Set<string>();
  /** Runs dispatched to each worker, and workers retiring after `recycleAfterRuns`. */
  const dispatched = new WeakMap<WorkerSlot, number>();
  const retiring = new Set<WorkerSlot>();
  let restarts = 0;
  let recycled = 0;
  let reusedIsolates = 0;
  let startFailures = 0;
  let closing = false;

  function startWorker(): void {
    slots.add(
      createWorkerSlot(settings, {
        onReady: () => {
          startFailures = 0;
          pump();
        },
        onRunDone: (reused) => {
          if (reused) reusedIsolates += 1;
          for (const slot of retiring) shutdownIfIdle(slot);
          pump();
        },
        onExit: (slot, requeue, hadStarted) => {
          slots.delete(slot);
          if (retiring.delete(slot)) {
            // A retired worker: its replacement was started when it retired.
            requeueAll(requeue);
            return pump();
          }
          if (closing) return requeue.forEach((ticket) => ticket.fail("CANCELLED", "the sandbox pool was closed"));
          requeueAll(requeue);
          replaceWorker(hadStarted);
          pump();
        },
      }),
    );
  }

  function requeueAll(tickets: RunTicket[]): void {
    for (const ticket of tickets.reverse()) queue.unshift(ticket);
  }

  function replaceWorker(hadStarted: boolean): void {
    restarts += 1;
    if (!hadStarted) startFailures += 1;
    if (startFailures >= MAX_START_FAILURES && ![...slots].some((slot) => slot.process.ready)) {
      for (const ticket of queue.drain()) ticket.fail("WORKER_CRASHED", "the sandbox workers cannot start");
    }
    const delay = startFailures === 0 ? 0 : Math.min(5_000, 100 * 2 ** startFailures);
    setTimeout(() => closing || startWorker(), delay).unref();
  }

  /** After `recycleAfterRuns` runs a worker takes no more; a replacement warms up meanwhile. */
  function retireIfDue(slot: WorkerSlot): void {
    const count = (dispatched.get(slot) ?? 0) + 1;
    dispatched.set(slot, count);
    if (count < settings.recycleAfterRuns || retiring.has(slot) || closing) return;
    retiring.add(slot);
    recycled += 1;
    startWorker();
    shutdownIfIdle(slot);
  }

  function shutdownIfIdle(slot: WorkerSlot): void {
    if (retiring.has(slot) && slot.runs.size === 0) slot.process.shutdown();
  }

  /** Users whose isolate a worker probably keeps warm (it ran their last runs); bounded. */
  const warmUsers = new WeakMap<WorkerSlot, Set<string>>();
  const WARM_USERS_PER_WORKER = 64;

  function noteWarm(slot: WorkerSlot, userId: string): void {
    const users = warmUsers.get(slot) ?? new Set<string>();
    users.delete(userId);
    users.add(userId);
    if (users.size > WARM_USERS_PER_WORKER) users.delete(users.values().next().value as string);
    warmUsers.set(slot, users);
  }

  /** The least busy free worker; for `userId`, one that keeps their isolate warm if it is no busier. */
  function pickSlot(userId?: string): WorkerSlot | undefined {
    let best: WorkerSlot | undefined;
    let warm: WorkerSlot | undefined;
    for (const slot of slots) {
      if (!slot.process.ready || retiring.has(slot) || slot.runs.size >= settings.runsPerWorker) continue;
      if (best === undefined || slot.runs.size < best.runs.size) best = slot;
      if (userId !== undefined && warmUsers.get(slot)?.has(userId) === true && (warm === undefined || slot.runs.size < warm.runs.size)) warm = slot;
    }
    return warm !== undefined && best !== undefined && warm.runs.size <= best.runs.size ? warm : best;
  }

  function inFlight(userId: string): number {
    let count = 0;
    for (const slot of slots) for (const ticket of slot.runs.values()) if (ticket.job.user.id === userId) count += 1;
    return count;
  }

  function pump(): void {
    while (queue.size > 0) {
      if (pickSlot() === undefined) return;
      const ticket = queue.next((userId) => inFlight(userId) < settings.userRunsInFlight);
      if (ticket === undefined) return;
      const slot = pickSlot(ticket.job.user.id) as WorkerSlot;
      noteWarm(slot, ticket.job.user.id);
      slot.runs.set(ticket.job.runId, ticket);
      ticket.markDispatched();
      const deadline = ticket.job.limits.wallMs + settings.deadlineGraceMs;
      ticket.addTimer(
        setTimeout(() => {
          if (ticket.done) return;
          ticket.fail("TOOL_TIMEOUT", `the tool did not finish within ${ticket.job.limits.wallMs} ms (its worker was stopped)`);
          slot.process.kill("deadline", `run ${ticket.job.runId} could not be stopped by its deadline`, ticket.job.runId);
        }, deadline),
      );
      slot.process.send({ t: "run", job: ticket.job });
      retireIfDue(slot);
    }
  }

  function cancel(ticket: RunTicket): void {
    if (ticket.done) return;
    if (queue.remove(ticket)) return ticket.fail("CANCELLED", "the run was cancelled before it started");
    for (const slot of slots) {
      if (slot.runs.get(ticket.job.runId) !== ticket) continue;
      slot.process.send({ t: "cancel", runId: ticket.job.runId });
      ticket.addTimer(
        setTimeout(() => {
          if (ticket.done) return;
          ticket.fail("CANCELLED", "the run was cancelled (its worker was stopped)");
          slot.process.kill("cancel", `run ${ticket.job.runId} did not stop when cancelled`, ticket.job.runId);
        }, settings.cancelGraceMs),
      );
    }
  }

  function run(job: RunJob, hooks: RunHooks): Promise<RunOutcome> {
    try {
      checkJob(job);
      if (typeof hooks?.resolveModule !== "function") throw new TypeError("SandboxPool.run: hooks.resolveModule must be a function");
      if (runIds.has(job.runId)) throw new TypeError(`SandboxPool.run: a run with id ${JSON.stringify(job.runId)} is already going on`);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<RunOutcome>((resolve) => {
      const signal = hooks.signal;
      const onAbort = (): void => cancel(ticket);
      runIds.add(job.runId);
      const ticket = createRunTicket(job, hooks, resolve, () => {
        runIds.delete(job.runId);
        signal?.removeEventListener("abort", onAbort);
      });
      if (closing) return ticket.fail("CANCELLED", "the sandbox pool is closed");
      if (signal?.aborted) return ticket.fail("CANCELLED", "the run was cancelled before it started");
      signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(ticket);
      pump();
    });
  }

  async function close(): Promise<void> {
    if (closing) return Promise.all([...slots].map((slot) => slot.exited)).then(() => undefined);
    closing = true;
    for (const ticket of queue.drain()) ticket.fail("CANCELLED", "the sandbox pool was closed");
    const exits = [...slots].map((slot) => {
      slot.process.shutdown();
      const timer = setTimeout(() => slot.process.kill("close", "the pool was closed"), CLOSE_GRACE_MS);
      return slot.exited.finally(() => clearTimeout(timer));
    });
    await Promise.all(exits);
  }

  for (let index = 0; index < settings.workers; index += 1) startWorker();

  return {
    run,
    stats: () => ({
      workers: [...slots].filter((slot) => slot.process.ready).length,
      busy: [...slots].reduce((sum, slot) => sum + slot.runs.size, 0),
      queued: queue.size,
      restarts,
      recycled,
      reusedIsolates,
    }),
    close,
  };
}
