/**
 * One worker process as the pool sees it: the runs it holds, the routing of its messages to those
 * runs, and what happens to them when it dies.
 *
 * When one run is to blame (a deadline or cancel it did not honour, an isolate that would not
 * stop, the memory budget with a suspect), only that run's *user* pays: their runs on the worker
 * fail with the cause's code, and every other user's run is handed back to the pool to run again
 * (issue 10, root cause 8) — at most MAX_REQUEUES times, so a run cannot be bounced forever, and
 * never once it has called a plugin (that call would be made twice; it fails instead). With
 * no one to blame (a crash, missed heartbeats) acknowledged runs fail with WORKER_CRASHED. A run
 * the worker never acknowledged cannot have done anything yet, so it always goes back. Messages
 * are fixed per cause: they never carry the kill's detail, which may name another run.
 */
import type { SandboxErrorCode } from "../errors.ts";
import type { WorkerToHost } from "../ipc.ts";
import type { PoolSettings } from "./options.ts";
import type { RunTicket } from "./run-ticket.ts";
import { spawnWorker, type KillCause, type WorkerProcess } from "./worker-process.ts";

export interface WorkerSlot {
  readonly process: WorkerProcess;
  readonly runs: Map<string, RunTicket>;
  readonly exited: Promise<void>;
}

export interface SlotEvents {
  onReady(): void;
  /** A run finished: a slot is free. `reused`: its context was made in the user's warm isolate. */
  onRunDone(reused: boolean): void;
  /** The process is gone; `requeue` are runs to run again elsewhere; `hadStarted`: it once became ready. */
  onExit(slot: WorkerSlot, requeue: RunTicket[], hadStarted: boolean): void;
}

/** A run lost with its worker for someone else's run is retried this many times at most. */
export const MAX_REQUEUES = 2;
/** A run that was never acknowledged is dispatched this many times more at most. */
export const MAX_UNACKNOWLEDGED_REQUEUES = 3;
/** Owners of recently finished runs: a stuck isolate is reported after its run has answered. */
const RECENT_OWNERS = 256;

function lostRunError(cause: KillCause, settings: PoolSettings): [SandboxErrorCode, string] {
  switch (cause) {
    case "memory":
      return ["MEMORY_LIMIT", `the run was stopped: its sandbox worker went over its budget of ${settings.workerMemoryMb} MB`];
    case "close":
      return ["CANCELLED", "the sandbox pool was closed"];
    case "heartbeat":
      return ["WORKER_CRASHED", "the sandbox worker was lost during the run: it missed its heartbeats"];
    default:
      return ["WORKER_CRASHED", "the sandbox worker was lost during the run"];
  }
}

export function createWorkerSlot(settings: PoolSettings, events: SlotEvents): WorkerSlot {
  const runs = new Map<string, RunTicket>();
  const owners = new Map<string, string>();
  let resolveExited!: () => void;
  const exited = new Promise<void>((resolve) => (resolveExited = resolve));
  let hadStarted = false;

  function remember(ticket: RunTicket): void {
    owners.delete(ticket.job.runId);
    owners.set(ticket.job.runId, ticket.job.user.id);
    if (owners.size > RECENT_OWNERS) owners.delete(owners.keys().next().value as string);
  }

  function onMessage(message: WorkerToHost): void {
    switch (message.t) {
      case "started": {
        const ticket = runs.get(message.runId);
        if (ticket !== undefined) remember(ticket);
        return ticket?.markAcknowledged(message.effect === true);
      }
      case "events": {
        const ticket = runs.get(message.runId);
        if (ticket === undefined) return;
        // Events mean user code has run: the worker sends them in place of its acknowledgement.
        remember(ticket);
        ticket.markAcknowledged();
        if (Array.isArray(message.events)) for (const event of message.events) ticket.event(event);
        return;
      }
      case "resolve": {
        const { reqId } = message;
        const ticket = runs.get(message.runId);
        if (ticket === undefined) return slot.process.send({ t: "module", reqId, source: null, failed: true });
        void Promise.resolve()
          .then(() => ticket.hooks.resolveModule(String(message.specifier)))
          .then(
            (source) => slot.process.send({ t: "module", reqId, source: typeof source === "string" ? source : null }),
            () => slot.process.send({ t: "module", reqId, source: null, failed: true }),
          );
        return;
      }
      case "done": {
        const ticket = runs.get(message.runId);
        if (ticket !== undefined) remember(ticket);
        runs.delete(message.runId);
        ticket?.complete(message.verdict);
        return events.onRunDone(message.reused === true);
      }
      case "fatal":
        return slot.process.kill("fatal", String(message.reason), typeof message.runId === "string" ? message.runId : undefined);
      default:
        return undefined;
    }
  }

  function onExit(cause: KillCause, _detail: string, culpritRunId: string | undefined): void {
    const culpritUser = culpritRunId === undefined ? undefined : (owners.get(culpritRunId) ?? runs.get(culpritRunId)?.job.user.id);
    const requeue: RunTicket[] = [];
    for (const ticket of runs.values()) {
      if (ticket.done) continue;
      const othersRun = culpritUser !== undefined && ticket.job.user.id !== culpritUser;
      // Another user's run goes back too, unless it has called a plugin: run again, its call would be made twice.
      const innocent = othersRun && ticket.requeues < MAX_REQUEUES && !ticket.hadEffects;
      // Not acknowledged: it has had no effect yet, so it may run again — unless it is the culprit,
      // or its workers keep dying under it (a crash in its first milliseconds, before any ack).
      const unseen = !ticket.acknowledged && ticket.job.runId !== culpritRunId && ticket.dispatches <= MAX_UNACKNOWLEDGED_REQUEUES;
      if (cause !== "close" && (unseen || innocent)) {
        ticket.markRequeued();
        requeue.push(ticket);
        continue;
      }
      if (cause !== "close" && othersRun && ticket.hadEffects) {
        ticket.fail("WORKER_CRASHED", "the sandbox worker was lost during the run, after it had called a plugin, so it was not run again");
        continue;
      }
      const [code, message] = lostRunError(cause, settings);
      ticket.fail(code, message);
    }
    runs.clear();
    resolveExited();
    events.onExit(slot, requeue, hadStarted);
  }

  const slot: WorkerSlot = {
    runs,
    exited,
    process: spawnWorker(settings, {
      onReady: () => {
        hadStarted = true;
        events.onReady();
      },
      onMessage,
      onExit,
    }),
  };
  return slot;
}
