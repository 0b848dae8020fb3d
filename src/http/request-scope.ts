/**
 * What the HTTP server knows about the request being handled, for code far below the route (the
 * audit log) without threading it through every call: the client's own `x-request-id`. The
 * server always mints its own request id; a client-chosen one is only ever kept beside it, as
 * `clientRequestId`, so two callers can never share (or forge) the id an audit row is found by.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface RequestScope {
  /** The `x-request-id` the client sent, when it was well-formed; null otherwise. */
  readonly clientRequestId: string | null;
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInRequestScope<T>(scope: RequestScope, fn: () => T): T {
  return storage.run(scope, fn);
}

export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}
