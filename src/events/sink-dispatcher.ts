/**
 * Delivers the outbox: leases due deliveries (each sink's oldest open one, so in order per sink),
 * runs each sink in the sandbox through the tool runner *as its owner*, and settles the row:
 * `delivered`, or `failed` with the error and an exponential backoff, or `dead` after the last
 * attempt. A sink that throws or times out is a failed delivery, never a dispatcher crash.
 *
 * Up to SLOTS deliveries run at once, and a slot is refilled as soon as its delivery settles: a
 * slow sink holds one slot (a sink has one delivery open at a time, in order), never the others'
 * turn. (A pass that waited for all its deliveries let one sink napping 30 s hold up every user.)
 */
import type { AuditLog } from "../audit/audit-log.ts";
import { scriptAuditName } from "../audit/tool-names.ts";
import type { Authenticator } from "../auth/authenticate.ts";
import type { ServerConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import type { ClaimedDelivery, Store } from "../store/store.ts";
import type { ToolRunner } from "../tools/tool-runner.ts";
import { mayReceiveEvent, SINK_ORIGIN, type EventAudience } from "./event-bus.ts";

export interface SinkDispatcher {
  /** Look for due deliveries now (e.g. after an event was stored). */
  wake(): void;
  /** Claims what is due and resolves once nothing is running and nothing more was due: the deliveries settled meanwhile. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

export interface DispatcherDeps {
  readonly store: Store;
  readonly auth: Authenticator;
  readonly runner: ToolRunner;
  readonly audit: AuditLog;
  readonly logger: Logger;
  readonly settings: ServerConfig["sinks"];
  /** A lease outlasts a sink's longest run, so another instance never takes a delivery still running. */
  readonly leaseMs: number;
  /** Who may receive an event of this type for this owner now (event-types.ts deliveryAudience); null: nobody. */
  readonly audienceOf: (type: string, ownerId: string) => EventAudience | null;
}

/** For a process that stores events but leaves their delivery to the server (the `run` command). */
export const INERT_DISPATCHER: SinkDispatcher = Object.freeze({ wake: () => {}, drain: async () => 0, stop: async () => {} });

const SLOTS = 8;
/**
 * Outcomes where the host, not the sink, kept the run from happening or finishing: the owner's run
 * quota, a sandbox closing, a plugin restarting, the server shutting down. Such a delivery is put
 * off without using an attempt. (Not WORKER_CRASHED: the pool names the run that crashed a worker,
 * and retrying that for free would let a sink kill workers again and again.)
 */
const HOST_SIDE: ReadonlySet<string> = new Set(["RATE_LIMITED", "CANCELLED", "SHUTTING_DOWN", "PLUGIN_UNAVAILABLE"]);

export function startSinkDispatcher(deps: DispatcherDeps): SinkDispatcher {
  let stopped = false;
  /** Deliveries running now. */
  const running = new Set<Promise<void>>();
  let settledCount = 0;
  let claiming: Promise<void> | null = null;
  let again = false;

  /** Claims into the free slots until nothing more is due; each delivery frees its slot and claims again. */
  const fill = (): Promise<void> => {
    if (claiming) {
      again = true;
      return claiming;
    }
    claiming = (async () => {
      try {
        do {
          again = false;
          while (!stopped && running.size < SLOTS) {
            const now = Date.now();
            const claimed = await deps.store.claimDeliveries(new Date(now).toISOString(), new Date(now + deps.leaseMs).toISOString(), SLOTS - running.size);
            for (const delivery of claimed) {
              const run: Promise<void> = deliver(delivery).finally(() => {
                running.delete(run);
                settledCount += 1;
                if (!stopped) void fill();
              });
              running.add(run);
            }
            if (claimed.length === 0) break;
          }
        } while (again && !stopped);
      } catch (error) {
        deps.logger.error("sink dispatcher could not claim deliveries", { error });
      } finally {
        claiming = null;
      }
    })();
    return claiming;
  };

  const drain = async (): Promise<number> => {
    const before = settledCount;
    await fill();
    while (running.size > 0 || claiming) {
      await Promise.race([...running, ...(claiming ? [claiming] : [])]);
      await fill();
    }
    return settledCount - before;
  };

  /** A settlement that found the row under another claim (its lease expired meanwhile) changed nothing. */
  function noteLease(held: boolean): void {
    if (!held) deps.logger.warn("a sink delivery outlived its lease: another claimer runs it, and settles it");
  }

  /** When to try again after `attempts`: the configured backoff, doubling, capped. */
  const retryAt = (attempts: number) =>
    new Date(Date.now() + Math.min(deps.settings.maxBackoffMs, deps.settings.backoffMs * 2 ** Math.min(attempts, 30))).toISOString();

  /**
   * Keeps the delivery's lease while its run goes on (a run may wait in the sandbox's queue first):
   * renewed every third of it; if another claimer took the row meanwhile, the run is cancelled.
   */
  function holdLease(delivery: ClaimedDelivery) {
    let lease = delivery.leaseUntil;
    let lost = false;
    let renewing: Promise<void> = Promise.resolve();
    const cancel = new AbortController();
    const timer = setInterval(() => {
      renewing = renewing.then(async () => {
        if (lost) return;
        const next = new Date(Date.now() + deps.leaseMs).toISOString();
        if (await deps.store.renewDelivery(delivery.id, lease, next)) lease = next;
        else {
          lost = true;
          cancel.abort();
          deps.logger.warn("a sink delivery lost its lease to another claimer: its run is cancelled", { deliveryId: delivery.id });
        }
      }).catch(() => {}); // a failed renewal is tried again at the next tick
    }, Math.max(10, Math.floor(deps.leaseMs / 3)));
    timer.unref();
    return {
      signal: cancel.signal,
      /** Stops renewing; the lease to settle under, or null when it was lost. */
      async release(): Promise<string | null> {
        clearInterval(timer);
        await renewing;
        return lost ? null : lease;
      },
    };
  }

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const started = performance.now();
    const held = holdLease(delivery);
    let error: string | null = null;
    let hostSide = false;
    /** Not the sink's failure either, and final: retrying would not change it. */
    let lostSight = false;
    let auditOutcome = "ok";
    try {
      const sink = await deps.store.getUserTool(delivery.sinkId);
      if (sink && !sink.active) {
        // Switched off for now: its queue waits for it instead of dying meanwhile.
        hostSide = true;
        throw new Error("the sink is inactive");
      }
      const principal = sink ? await deps.auth.principalFor(sink.ownerId) : null;
      if (!sink || !principal) throw new Error("the sink or its owner no longer exists");
      // Decided when the event happened, and again now: a permission lost or a subscription
      // dropped while the event waited in the queue stops it too.
      const audience = deps.audienceOf(delivery.event.type, sink.ownerId);
      if (!sink.events?.includes(delivery.event.type) || audience === null || !(await mayReceiveEvent(deps.store, sink, audience))) {
        lostSight = true;
        throw new Error("not delivered: the sink no longer subscribes to this event, or its owner may no longer receive it");
      }
      const asSink = { ...principal, [SINK_ORIGIN]: [...(delivery.event.causedBy ?? []), sink.id] };
      const { id, type, at, data } = delivery.event;
      const outcome = await deps.runner.run(asSink, sink, { id, type, at, data: data ?? null }, { validated: true, entry: "sink", signal: held.signal });
      if (!outcome.ok) {
        auditOutcome = outcome.error.code;
        hostSide = HOST_SIDE.has(outcome.error.code);
        error = `${outcome.error.code}: ${outcome.error.message}`;
      }
      await deps.audit.record({
        principal: asSink, surface: "api", tool: scriptAuditName(sink), args: { eventId: delivery.event.id, type: delivery.event.type },
        masked: new Set(), outcome: auditOutcome, durationMs: performance.now() - started, requestId: null,
      }).catch(() => {});
    } catch (caught) {
      const code = (caught as { code?: unknown } | null)?.code;
      if (typeof code === "string" && HOST_SIDE.has(code)) hostSide = true;
      const message = caught instanceof Error ? caught.message : String(caught);
      error = typeof code === "string" ? `${code}: ${message}` : message;
    }
    try {
      // Under our lease only: if another claimer took the row, that one settles it.
      const lease = await held.release();
      if (lease === null) return;
      if (error === null) noteLease(await deps.store.settleDelivery(delivery.id, { status: "delivered" }, lease));
      else if (hostSide) {
        noteLease(await deps.store.settleDelivery(delivery.id, { status: "deferred", error, nextAttemptAt: retryAt(delivery.attempts) }, lease));
        deps.logger.debug("sink delivery put off (the host could not run it now)", { sinkId: delivery.sinkId, eventId: delivery.eventId, error });
      } else {
        const attempts = delivery.attempts + 1;
        const dead = lostSight || attempts >= deps.settings.maxAttempts;
        noteLease(await deps.store.settleDelivery(delivery.id, { status: dead ? "dead" : "failed", error, nextAttemptAt: retryAt(attempts - 1) }, lease));
        deps.logger.warn(dead ? "sink delivery is dead" : "sink delivery failed; will retry", { sinkId: delivery.sinkId, eventId: delivery.eventId, attempts, error });
      }
    } catch (settleError) {
      deps.logger.error("could not settle a sink delivery (its lease will expire and it is retried)", { deliveryId: delivery.id, error: settleError });
    }
  }

  const timer = setInterval(() => void fill(), deps.settings.pollMs);
  timer.unref();
  return {
    wake: () => void fill(),
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await claiming;
      await Promise.all(running);
    },
  };
}
