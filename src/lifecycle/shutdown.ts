/**
 * Graceful shutdown, in the order that loses nothing: stop taking new work (new requests get 503
 * SHUTTING_DOWN; the loopback calls of runs still going are let through), let running calls finish
 * up to the grace deadline, then close the sandbox (disposing isolates: a run still going past the
 * deadline ends CANCELLED), wait briefly for those last runs, their answers and the audit rows they
 * write, then close the listener and every connection and the MCP sessions, and the store last.
 * The sandbox closes before the connections: closed first, they would fail a stopped run's loopback
 * call, and the run would end (and be audited) as LOOPBACK_FAILED, not CANCELLED, by a race. A
 * plugin handler still running past the deadline cannot be pre-empted: it is not waited for, and
 * its row is lost.
 */
import type http from "node:http";
import type { Logger } from "../log.ts";
import type { Drain } from "./drain.ts";
import type { PendingWork } from "./pending-work.ts";

export interface ShutdownParts {
  readonly graceMs: number;
  readonly logger: Logger;
  readonly drain: Drain;
  readonly server: http.Server;
  /** Sandbox runs under way (counted around the runner's sandbox calls). */
  readonly runs: PendingWork;
  /** Audit rows being written. */
  readonly auditWrites: PendingWork;
  stopTimers(): void;
  closeMcp(): Promise<void>;
  closeSandbox(): Promise<void>;
  closeStore(): Promise<void>;
}

/** How long the runs stopped at the deadline get, in all, to end and write their audit rows. */
const SETTLE_MS = 1_000;

export async function shutdownGracefully(parts: ShutdownParts): Promise<void> {
  const started = performance.now();
  parts.drain.start();
  parts.logger.info("shutting down: refusing new requests, waiting for running calls", { inFlight: parts.drain.inFlight, graceMs: parts.graceMs });
  const drained = await parts.drain.idle(parts.graceMs);
  if (!drained) parts.logger.warn("shutdown deadline reached: stopping the calls still running", { inFlight: parts.drain.inFlight, runs: parts.runs.size });
  // Each step is attempted even if one before it failed: the store must still close last.
  const attempt = async (step: string, close: () => unknown) => {
    try {
      await close();
    } catch (error) {
      parts.logger.error("shutdown step failed", { step, error });
    }
  };
  await attempt("timers", parts.stopTimers);
  await attempt("sandbox", parts.closeSandbox);
  // A run stopped by the sandbox's close resolves now; its caller then answers and writes its audit row.
  const settleBy = performance.now() + SETTLE_MS;
  await parts.runs.idle(settleBy - performance.now());
  await new Promise<void>((resolve) => setImmediate(resolve));
  await parts.auditWrites.idle(settleBy - performance.now());
  await attempt("server", () => closeServer(parts.server));
  await attempt("mcp", parts.closeMcp);
  await parts.closeStore();
  parts.logger.info("shut down", { drained, durationMs: Math.round(performance.now() - started) });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) {
      server.closeAllConnections();
      return resolve();
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
