/**
 * `knot:plugin` for plugin code: call a declared handler of any plugin in process. The gate of
 * the declaration is enforced for the requesting user; the result and the errors are the same as
 * those of the HTTP dispatch (`POST|GET /plugins/<name>/<fn>`) and of a user tool's loopback call.
 */
import { KnotError } from "../../errors.ts";
import { currentContext } from "../call-context.ts";

export { KnotError };

export interface CallOptions {
  readonly method?: string;
}

export async function call(plugin: string, fn: string, params: unknown = {}, options: CallOptions = {}): Promise<unknown> {
  const context = currentContext();
  if (!context) throw new KnotError("BAD_REQUEST", "knot:plugin.call is only available while a handler call is running");
  return context.pool.call(context.principal, plugin, fn, params, { method: options.method, requestId: context.requestId });
}

/** Refuse the current call with 403 "permission denied" (for self-gating handlers and libs). */
export function deny(message = "permission denied"): never {
  throw new KnotError("PERMISSION_DENIED", message);
}
