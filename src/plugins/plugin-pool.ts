/**
 * The trusted plugin pool's call boundary. Every way of reaching a declared handler goes through
 * `dispatch`: the in-process `knot:plugin.call`, the HTTP route `/plugins/<name>/<fn>` (which a
 * user tool's loopback call also arrives on), and MCP plugin tools. So the name checks, the gate
 * (enforced before any handler code runs), the deadline and the error mapping are the same for all.
 */
import { GUEST_CAPS } from "../../sandbox/guest/bindings.ts";
import { HANDLER_NAME_FORBIDDEN, PLUGIN_NAME } from "../../sandbox/guest/names.ts";
import type { ToolResult } from "../../sandbox/protocol.ts";
import { KnotError } from "../errors.ts";
import { assertPluginGate } from "../identity/plugin-gate.ts";
import { toUserData, type Principal } from "../identity/principal.ts";
import type { Logger } from "../log.ts";
import { currentContext, runWithContext, type AssistantContext, type PluginCaller } from "./call-context.ts";
import type { PluginRegistry, HandlerFunction, LoadedPlugin } from "./registry.ts";
import { createToolState, isToolReturn, type ToolState } from "./tool-state.ts";
import { copyJson } from "../validation/json-copy.ts";


export interface DispatchInput {
  readonly principal: Principal;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly requestId?: string | null;
  readonly tool?: ToolState | null;
  /** Who asked through MCP; absent → inherited from the calling handler's context (null outside MCP). */
  readonly assistant?: AssistantContext | null;
}

export interface PluginPool extends PluginCaller {
  readonly registry: PluginRegistry;
  /** Resolve, gate and run a declared handler; answers its normalised result. */
  dispatch(plugin: string, fn: string, input: DispatchInput): Promise<ToolResult>;
  /** Run any function of a loaded plugin (an MCP tool or page handler) after the caller's gate check. */
  invoke(plugin: LoadedPlugin, fn: HandlerFunction, path: string, input: DispatchInput): Promise<ToolResult>;
}

/** One handler invocation as observers (metrics, the debug log) see it. */
export interface HandlerCall {
  readonly plugin: string;
  readonly fn: string;
  readonly method: string;
  /** "ok" or the error code the caller received. */
  readonly outcome: string;
  readonly durationMs: number;
  readonly requestId: string | null;
}

export function createPluginPool(registry: PluginRegistry, options: { deadlineMs: number; logger: Logger; onCall?: (call: HandlerCall) => void }): PluginPool {
  const pool: PluginPool = {
    registry,
    async dispatch(plugin, fn, input) {
      const target = resolveAddressable(registry, plugin, fn);
      assertPluginGate(input.principal, { plugin, name: fn, permission: target.decl.permission, write: target.decl.write, kind: "handler" });
      return pool.invoke(target.plugin, target.fn, `/plugins/${plugin}/${fn}`, input);
    },
    async invoke(plugin, fn, path, input) {
      const tool = input.tool ?? createToolState(input.params);
      // A handler `call()`ed by an MCP tool's handler still acts for that assistant.
      const assistant = input.assistant !== undefined ? input.assistant : (currentContext()?.assistant ?? null);
      const request = Object.freeze({
        method: input.method, path, params: copyJson(input.params),
        config: plugin.config, user: toUserData(input.principal),
        assistant: assistant === null ? null : Object.freeze({ ...assistant }),
      });
      const context = { principal: input.principal, pool, tool, requestId: input.requestId ?? null, plugin: plugin.name, assistant };
      const run = () => runWithContext(context, async () => fn(request));
      const returned = await withDeadline(run, options.deadlineMs, plugin.name, fn.name).catch((error: unknown) => {
        if (isToolReturn(error)) return undefined;
        throw asCallerError(error, plugin.name, options.logger, input.requestId ?? null);
      });
      if (tool.result) return tool.result;
      try {
        return normalise(returned);
      } catch (error) {
        // A BigInt, a cycle or a throwing toJSON: the handler answered something that is not JSON.
        options.logger.error("plugin handler returned a value that is not JSON-serialisable", { plugin: plugin.name, requestId: input.requestId ?? null, error });
        throw new KnotError("HANDLER_FAILED", "handler failed");
      }
    },
    async call(principal, plugin, fn, params, callOptions) {
      const method = (callOptions.method ?? "GET").toUpperCase();
      const result = await pool.dispatch(String(plugin), String(fn), { principal, method, params: asParams(params), requestId: callOptions.requestId ?? null });
      return resultValue(result);
    },
  };
  if (options.onCall) pool.invoke = observeInvoke(pool.invoke, options.onCall);
  return pool;
}

/** Reports every invocation (whichever way it came: dispatch, MCP tool, page) once it settles. */
function observeInvoke(invoke: PluginPool["invoke"], onCall: (call: HandlerCall) => void): PluginPool["invoke"] {
  return async function observedInvoke(plugin, fn, path, input) {
    const started = performance.now();
    const report = (outcome: string) => onCall({ plugin: plugin.name, fn: fn.name, method: input.method, outcome, durationMs: performance.now() - started, requestId: input.requestId ?? null });
    try {
      const result = await invoke(plugin, fn, path, input);
      report("ok");
      return result;
    } catch (error) {
      report(error instanceof KnotError ? String(error.code) : "INTERNAL");
      throw error;
    }
  };
}

function resolveAddressable(registry: PluginRegistry, plugin: string, fn: string) {
  const valid = PLUGIN_NAME.test(plugin) && fn.length > 0 && fn.length <= GUEST_CAPS.nameChars && !HANDLER_NAME_FORBIDDEN.test(fn);
  const target = valid ? registry.handler(plugin, fn) : null;
  if (!target) throw new KnotError("NOT_ADDRESSABLE", "not addressable", { where: `${plugin}/${fn}` });
  return target;
}

export function asParams(params: unknown): Record<string, unknown> {
  if (params === undefined || params === null) return {};
  if (typeof params !== "object" || Array.isArray(params)) throw new KnotError("BAD_REQUEST", "params must be an object");
  return JSON.parse(JSON.stringify(params)) as Record<string, unknown>;
}

/** A plain return: a string is text, nothing is none, anything else is JSON (a copy, never live). */
export function normalise(value: unknown): ToolResult {
  if (typeof value === "string") return { kind: "text", text: value };
  if (value === undefined || value === null) return { kind: "none" };
  if (typeof value === "function" || typeof value === "symbol") throw new TypeError(`a handler returned a ${typeof value}, which is not JSON`);
  const json = JSON.stringify(value);
  if (json === undefined) return { kind: "none" };
  return { kind: "json", value: JSON.parse(json) };
}

/** What `call()` answers: the same value the HTTP route's body decodes to. */
export function resultValue(result: ToolResult): unknown {
  switch (result.kind) {
    case "text": case "toon": return result.text;
    case "json": return result.value;
    case "content": return { content: result.content };
    case "none": return null;
  }
}

async function withDeadline<T>(run: () => Promise<T>, deadlineMs: number, plugin: string, fn: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new KnotError("HANDLER_TIMEOUT", `handler ${plugin}/${fn || "anonymous"} did not finish within ${deadlineMs} ms`)), deadlineMs);
  });
  try {
    return await Promise.race([run(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A KnotError is a deliberate answer and keeps its code; anything else is "handler failed". */
function asCallerError(error: unknown, plugin: string, logger: Logger, requestId: string | null): KnotError {
  if (error instanceof KnotError) return error;
  logger.error("plugin handler failed", { plugin, requestId, error });
  return new KnotError("HANDLER_FAILED", "handler failed");
}
