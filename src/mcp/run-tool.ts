/**
 * Runs a resolved, validated tool and answers its MCP result. Plugin tools run in the pool with
 * `request.method = "CALL"` and the `knot:tool` context (the pool applies the handler deadline);
 * user tools run in the sandbox as the caller (their questions, see input-rounds.ts, end the run) with a deadline and the client's cancellation wired
 * to the run's abort signal, so a cancelled or overdue run is stopped (its isolate disposed).
 */
import { KnotError } from "../errors.ts";
import { createToolState } from "../plugins/tool-state.ts";
import type { CallDeps } from "./call-tool.ts";
import { guestInput, guestQuestions, isInputNeeded } from "./input-rounds.ts";
import { linkedSignal } from "./linked-signal.ts";
import { errorResult, summaryValue, thrownResult, toolResult } from "./results.ts";
import type { CallToolResult } from "./sdk.ts";
import type { CallContext, CandidateTool } from "./tool-types.ts";

export interface RunResult {
  readonly result: CallToolResult;
  /** The value whose `summary` key goes in the audit log. */
  readonly summary?: unknown;
}

export async function runTool(deps: CallDeps, ctx: CallContext, tool: CandidateTool, args: Record<string, unknown>): Promise<RunResult> {
  switch (tool.kind) {
    case "boot":
      try {
        return { result: await tool.boot.run(ctx, args) };
      } catch (error) {
        if (!(error instanceof KnotError) || isInputNeeded(error)) throw error;
        return { result: thrownResult(error) };
      }
    case "plugin": return runPluginTool(deps, ctx, tool, args);
    case "user": return runUserTool(deps, ctx, tool, args);
  }
}

async function runPluginTool(deps: CallDeps, ctx: CallContext, tool: Extract<CandidateTool, { kind: "plugin" }>, args: Record<string, unknown>): Promise<RunResult> {
  const { plugin, fn, decl } = tool.plugin;
  const state = createToolState(args, ctx.emit, ctx.input);
  try {
    const result = await untilAborted(deps.pool.invoke(plugin, fn, `/mcp/tools/${decl.name}`, {
      principal: ctx.principal, method: "CALL", params: args, requestId: ctx.requestId, tool: state,
      assistant: assistantOf(ctx),
    }), ctx.signal);
    return { result: toolResult(result), summary: summaryValue(result) };
  } catch (error) {
    if (isInputNeeded(error)) throw error;
    return { result: thrownResult(error) };
  }
}

async function runUserTool(deps: CallDeps, ctx: CallContext, tool: Extract<CandidateTool, { kind: "user" }>, args: Record<string, unknown>): Promise<RunResult> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), deps.deadlineMs);
  const signal = linkedSignal(ctx.signal, deadline.signal);
  try {
    // The answers so far reach the guest through the runner (a reserved argument); a run that needs more ends with the questions.
    const outcome = await deps.runner.run(ctx.principal, tool.user, args, {
      signal: signal.signal, onEvent: ctx.emit, requestId: ctx.requestId, validated: true,
      assistant: assistantOf(ctx), ...(ctx.input ? { input: guestInput(ctx.input) } : {}),
    });
    const asked = outcome.ok && ctx.input ? guestQuestions(outcome.result) : null;
    if (asked) ctx.input!.take(asked);
    if (outcome.ok) return { result: toolResult(outcome.result), summary: summaryValue(outcome.result) };
    if (deadline.signal.aborted && !ctx.signal.aborted) {
      return { result: errorResult("TOOL_TIMEOUT", `the call did not finish within its ${deps.deadlineMs} ms deadline`) };
    }
    return { result: errorResult(outcome.error.code, outcome.error.message) };
  } catch (error) {
    if (isInputNeeded(error)) throw error;
    if (!(error instanceof KnotError)) deps.logger.error("user tool run failed", { tool: tool.name, requestId: ctx.requestId, error });
    return { result: thrownResult(error) };
  } finally {
    clearTimeout(timer);
    signal.dispose();
  }
}

/** A plugin handler cannot be pre-empted; a cancelled call stops waiting for it. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new KnotError("CANCELLED", "the call was cancelled"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new KnotError("CANCELLED", "the call was cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** `request.assistant` of the handlers this call reaches: the MCP client and the OAuth connection. */
function assistantOf(ctx: CallContext): { client: string | null; connection: string | null } {
  return { client: ctx.client, connection: ctx.principal.clientName ?? null };
}
