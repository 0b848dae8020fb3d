/**
 * The HTTP side of a graceful shutdown. Before `start()` every request is served and counted while
 * it runs; after it, new requests are refused (503 SHUTTING_DOWN, answered by the server) except
 * those `exempt` admits — the loopback calls of user tool runs still going, which must reach their
 * plugin handlers for those runs to finish. `idle()` resolves when the counted requests are done.
 * Long-lived streams (a route's `untracked`, e.g. the MCP notification stream) are not waited
 * for: the server does not track them, as they never end on their own and are closed with the server.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createPendingWork } from "./pending-work.ts";

export interface Drain {
  readonly draining: boolean;
  /** Requests being handled now (those tracked: untracked streams excluded). */
  readonly inFlight: number;
  /** Whether to serve this request at all. */
  admit(req: IncomingMessage): boolean;
  /** Counts the request until its handler has settled and its response has closed. */
  track(res: ServerResponse, handled: Promise<unknown>): void;
  /** From now on, refuse new requests (except exempt ones). */
  start(): void;
  /** True once no counted request is left, false if `timeoutMs` passed first. */
  idle(timeoutMs: number): Promise<boolean>;
}

export interface DrainOptions {
  /** Requests still admitted while draining. */
  exempt(req: IncomingMessage): boolean;
}

export function createDrain(options: DrainOptions): Drain {
  const requests = createPendingWork();
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    get inFlight() {
      return requests.size;
    },
    admit: (req) => !draining || options.exempt(req),
    track(res, handled) {
      const done = requests.begin();
      let pending = 2;
      const step = () => {
        pending -= 1;
        if (pending === 0) done();
      };
      if (res.closed) step();
      else res.once("close", step);
      handled.then(step, step);
    },
    start() {
      draining = true;
    },
    idle: (timeoutMs) => requests.idle(timeoutMs),
  };
}
