import { AsyncLocalStorage } from "node:async_hooks";
import type { Principal } from "../identity/principal.ts";
import type { ToolState } from "./tool-state.ts";

/**
 * What a plugin handler runs with: the requesting principal and, for MCP calls, the tool state
 * that `knot:tool` reads and writes. Bound per call with AsyncLocalStorage so that two
 * overlapping calls never see each other's user.
 */
export interface CallContext {
  readonly principal: Principal;
  /** The pool the call belongs to (several hosts may share one process in tests). */
  readonly pool: PluginCaller;
  readonly tool: ToolState | null;
  readonly requestId: string | null;
  /** The plugin whose handler is running (so `knot:events.emit` knows whose declarations apply). */
  readonly plugin?: string;
}

/** The in-process `call()` that `knot:plugin` forwards to. */
export interface PluginCaller {
  call(principal: Principal, plugin: string, fn: string, params: unknown, options: { method?: string; requestId?: string | null }): Promise<unknown>;
}

const storage = new AsyncLocalStorage<CallContext>();

export function runWithContext<T>(context: CallContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentContext(): CallContext | undefined {
  return storage.getStore();
}
