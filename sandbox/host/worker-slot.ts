/**
 * One worker process as the pool sees it: the runs it holds, the routing of its messages to those
 * runs, and what happens to them when it dies — each acknowledged run fails with the code of the
 * cause (MEMORY_LIMIT for the memory budget, CANCELLED when the pool closes, WORKER_CRASHED
 * otherwise); a run it never acknowledged is handed back to the pool to run elsewhere.
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
  /** A run finished: a slot is free. */
  onRunDone(): void;
  /** The process is gone; `requeue` are runs it never acknowledged; `hadStarted`: it once became ready. */
  onExit(slot: WorkerSlot, requeue: RunTicket[], hadStarted: boolean): void;
}

function lostRunError(cause: KillCause, detail: string): [SandboxErrorCode, string] {
  switch (cause) {
    case "memory":
      return ["MEMORY_LIMIT", `the run was stopped: ${detail}`];
    case "close":
      return ["CANCELLED", "the sandbox pool was closed"];
    default:
      return ["WORKER_CRASHED", `the sandbox worker was lost during the run: ${detail}`];
  }
}

export function createWorkerSlot(settings: PoolSettings, events: SlotEvents): WorkerSlot {
  const runs = new Map<string, RunTicket>();
  let resolveExited!: () => void;
  const exited = new Promise<void>((resolve) => (resolveExited = resolve));
  let hadStarted = false;

  function onMessage(message: WorkerToHost): void {
    switch (message.t) {
      case "started":
        return runs.get(message.runId)?.markAcknowledged();
      case "event":
        return runs.get(message.runId)?.event(message.event);
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
        runs.delete(message.runId);
        ticket?.complete(message.verdict);
        return events.onRunDone();
      }
      case "fatal":
        return slot.process.kill("fatal", String(message.reason));
      default:
        return undefined;
    }
  }

  function onExit(cause: KillCause, detail: string): void {
    const requeue: RunTicket[] = [];
    for (const ticket of runs.values()) {
      if (ticket.done) continue;
      if (!ticket.acknowledged && cause !== "close") {
        ticket.markRequeued();
        requeue.push(ticket);
        continue;
      }
      const [code, message] = lostRunError(cause, detail);
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
