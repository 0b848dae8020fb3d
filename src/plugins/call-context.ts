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
  /** Set when the call came through MCP (and kept for the handlers it `call()`s). */
  readonly assistant?: AssistantContext | null;
}

/**
 * `request.assistant` of a handler called through MCP: `client` is the MCP client's
 * `name/version` (from initialize; null when it gave none), `connection` the OAuth connection's
 * client name when the token is one (null for a plain token). Null for every other caller.
 */
export interface AssistantContext {
  readonly client: string | null;
  readonly connection: string | null;
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
