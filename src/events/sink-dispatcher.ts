/**
 * Delivers the outbox: leases due deliveries (each sink's oldest open one, so in order per sink),
 * runs each sink in the sandbox through the tool runner *as its owner*, and settles the row:
 * `delivered`, or `failed` with the error and an exponential backoff, or `dead` after the last
 * attempt. A sink that throws or times out is a failed delivery, never a dispatcher crash.
 */
import type { AuditLog } from "../audit/audit-log.ts";
import type { Authenticator } from "../auth/authenticate.ts";
import type { ServerConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import type { ClaimedDelivery, Store } from "../store/store.ts";
import type { ToolRunner } from "../tools/tool-runner.ts";
import { SINK_ORIGIN } from "./event-bus.ts";

export interface SinkDispatcher {
  /** Look for due deliveries now (e.g. after an event was stored). */
  wake(): void;
  /** One pass: claim, run and settle; resolves when those deliveries are settled. */
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
}

const BATCH = 8;

export function startSinkDispatcher(deps: DispatcherDeps): SinkDispatcher {
  let stopped = false;
  let running: Promise<number> | null = null;
  let again = false;

  const pass = async (): Promise<number> => {
    const now = Date.now();
    const claimed = await deps.store.claimDeliveries(new Date(now).toISOString(), new Date(now + deps.leaseMs).toISOString(), BATCH);
    await Promise.all(claimed.map((delivery) => deliver(delivery)));
    return claimed.length;
  };
  const drain = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      try {
        do {
          again = false;
          const n = await pass();
          total += n;
          if (n === BATCH) again = true;
        } while (again && !stopped);
      } catch (error) {
        deps.logger.error("sink dispatcher pass failed", { error });
      } finally {
        running = null;
      }
      return total;
    })();
    return running;
  };

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const started = performance.now();
    let error: string | null = null;
    let auditOutcome = "ok";
    try {
      const sink = await deps.store.getUserTool(delivery.sinkId);
      const principal = sink && sink.active ? await deps.auth.principalFor(sink.ownerId) : null;
      if (!sink || !principal) throw new Error("the sink or its owner no longer exists, or the sink is inactive");
      const asSink = { ...principal, [SINK_ORIGIN]: [...(delivery.event.causedBy ?? []), sink.id] };
      const { id, type, at, data } = delivery.event;
      const outcome = await deps.runner.run(asSink, sink, { id, type, at, data: data ?? null }, { validated: true, entry: "sink" });
      if (!outcome.ok) {
        auditOutcome = outcome.error.code;
        error = `${outcome.error.code}: ${outcome.error.message}`;
      }
      await deps.audit.record({
        principal: asSink, surface: "api", tool: `sink:${sink.name}`, args: { eventId: delivery.event.id, type: delivery.event.type },
        masked: new Set(), outcome: auditOutcome, durationMs: performance.now() - started, requestId: null,
      }).catch(() => {});
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    try {
      if (error === null) await deps.store.settleDelivery(delivery.id, { status: "delivered" });
      else {
        const attempts = delivery.attempts + 1;
        const dead = attempts >= deps.settings.maxAttempts;
        const delay = Math.min(deps.settings.maxBackoffMs, deps.settings.backoffMs * 2 ** (attempts - 1));
        await deps.store.settleDelivery(delivery.id, { status: dead ? "dead" : "failed", error, nextAttemptAt: new Date(Date.now() + delay).toISOString() });
        deps.logger.warn(dead ? "sink delivery is dead" : "sink delivery failed; will retry", { sinkId: delivery.sinkId, eventId: delivery.eventId, attempts, error });
      }
    } catch (settleError) {
      deps.logger.error("could not settle a sink delivery (its lease will expire and it is retried)", { deliveryId: delivery.id, error: settleError });
    }
  }

  const timer = setInterval(() => void drain(), deps.settings.pollMs);
  timer.unref();
  return {
    wake: () => void drain(),
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
