/**
 * One `tools/call`, whatever the transport: resolve through the one resolver (a hidden tool is
 * refused before any of its code runs), validate the arguments against the tool's schema, run it
 * (boot tool in process, plugin tool in the pool with the `knot:tool` context, user tool in the
 * sandbox as the caller), turn the outcome into an MCP result, and audit it — refusals included.
 */
import type { Audited } from "../audit/audit-around.ts";
import type { AuditLog } from "../audit/audit-log.ts";
import { scriptAuditName } from "../audit/tool-names.ts";
import { KnotError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { PluginPool } from "../plugins/plugin-pool.ts";
import { maskedParameters } from "../tools/run-outcome.ts";
import type { ToolRunner } from "../tools/tool-runner.ts";
import { assertJsonDepth } from "../validation/json-depth.ts";
import { validateArguments } from "../validation/json-schema.ts";
import type { ToolResolver } from "./resolver.ts";
import { isInputNeeded } from "./input-rounds.ts";
import { ERROR_CODE_META, errorResult, thrownResult, WHERE_META } from "./results.ts";
import { runTool } from "./run-tool.ts";
import { invalidParams, ProtocolError } from "./protocol-error.ts";
import type { CallToolResult } from "./sdk.ts";
import type { CallContext, CandidateTool } from "./tool-types.ts";

export interface CallDeps {
  readonly resolver: ToolResolver;
  readonly pool: PluginPool;
  readonly runner: ToolRunner;
  readonly audit: AuditLog;
  readonly logger: Logger;
  /** Deadline of every call (config.handlerTimeoutMs); a user tool's own limits may be tighter. */
  readonly deadlineMs: number;
}

export type CallToolFn = (ctx: CallContext, name: string, args: unknown) => Promise<CallToolResult>;

export function createCallTool(deps: CallDeps): CallToolFn {
  return function callTool(ctx, name, rawArgs) {
    const given = isObject(rawArgs) ? rawArgs : {};
    // Until the tool is known every value is masked: which of them it declares secret is not the caller's to learn.
    const meta = { principal: ctx.principal, surface: "mcp", tool: name, args: given, masked: Object.keys(given), requestId: ctx.requestId, client: ctx.client, signal: ctx.signal } as const;
    return deps.audit.around(meta, async (call): Promise<Audited<CallToolResult>> => {
      const found = await deps.resolver.resolve(ctx.principal, name);
      if (!found.tool) {
        if (found.ambiguous) {
          call.failure = "AMBIGUOUS_TOOL_NAME";
          throw invalidParams(ambiguityMessage(name, found.ambiguous), "AMBIGUOUS_TOOL_NAME");
        }
        // Hidden and unknown look the same to the caller; the audit row and the visibility report say which.
        call.failure = found.exists ? "PERMISSION_DENIED" : "UNKNOWN_TOOL";
        throw invalidParams(`Unknown tool: ${name}`, "UNKNOWN_TOOL");
      }
      const tool = found.tool;
      if (tool.kind === "user") call.tool = scriptAuditName(tool.user);
      call.masked = maskedOf(tool);
      // In 2026-07-28 a tool that mirrors arguments in Mcp-Param headers is called directly: through
      // execute_tool the request's headers would name execute_tool and carry none of them, past any
      // gateway that routes or enforces policy on them (the reason the tool declared them). Earlier
      // revisions and stdio have no such headers, so there is nothing to get past.
      if (ctx.depth > 0 && ctx.modern && tool.kind === "plugin" && tool.plugin.decl.headerParams.length > 0) {
        const mirrored = tool.plugin.decl.headerParams.map((param) => `${param.path.join(".")} (Mcp-Param-${param.header})`).join(", ");
        return { outcome: "BAD_REQUEST", value: errorResult("BAD_REQUEST", `"${name}" mirrors ${mirrored} in request headers: call it directly, not through execute_tool`) };
      }
      if (tool.kind === "boot" && tool.name === "execute_tool") call.maskedWithin = { arguments: await targetMasked(deps, ctx, given.name) };
      let args: Record<string, unknown>;
      try {
        if (rawArgs !== undefined && rawArgs !== null && !isObject(rawArgs)) throw new KnotError("INVALID_ARGUMENT", `arguments of "${name}" must be an object`);
        assertJsonDepth(given, `arguments of "${name}"`);
        args = validateArguments(schemaOf(deps, tool), given, name);
      } catch (error) {
        // A tool result, not a protocol error (SEP-1303): the model reads it and corrects its call.
        const known = error instanceof KnotError ? error : new KnotError("INVALID_ARGUMENT", `arguments of "${name}" are invalid`);
        const result = errorResult(String(known.code), known.message);
        return { outcome: String(known.code), value: known.detail.where === undefined ? result : { ...result, _meta: { ...result._meta, [WHERE_META]: known.detail.where } } };
      }

      call.args = args;
      let outcome: { result: CallToolResult; summary?: unknown };
      try {
        outcome = await runTool(deps, ctx, tool, args);
      } catch (error) {
        // A nested protocol error (execute_tool naming an unknown tool or passing bad arguments).
        if (error instanceof ProtocolError) {
          call.failure = error.data.code;
          throw error;
        }
        // The tool asked the client something: this round ends; the next one runs it again with the answer.
        if (isInputNeeded(error)) {
          call.failure = "INPUT_REQUIRED";
          throw error;
        }
        deps.logger.error("mcp tool call failed", { tool: name, requestId: ctx.requestId, error });
        return { outcome: "INTERNAL", value: thrownResult(error) };
      }
      const code = outcome.result.isError ? String(outcome.result._meta?.[ERROR_CODE_META] ?? "TOOL_ERROR") : "ok";
      return { outcome: code, value: outcome.result, result: outcome.summary };
    });
  };
}

/** The caller may see every name listed here (they are in their own tools/list). */
function ambiguityMessage(name: string, qualified: readonly string[]): string {
  return `"${name}" is not a tool of yours; tools shared with you are called by their owner-qualified names: ${qualified.join(", ")}`;
}

function schemaOf(deps: CallDeps, tool: CandidateTool): object {
  switch (tool.kind) {
    case "boot": return tool.boot.inputSchema;
    case "user": return deps.runner.schemaOf(tool.user);
    case "plugin": return tool.plugin.decl.inputSchema;
  }
}

function maskedOf(tool: CandidateTool): string[] {
  switch (tool.kind) {
    case "boot": return maskedParameters(tool.boot.parameters);
    case "user": return maskedParameters(tool.user.parameters);
    case "plugin": return maskedParameters(tool.plugin.decl.parameters);
  }
}

/**
 * execute_tool declares no secret parameters of its own: its `arguments` are masked by the flags
 * of the tool it names, and wholly when that tool is unknown or hidden from the caller.
 */
async function targetMasked(deps: CallDeps, ctx: CallContext, name: unknown): Promise<readonly string[] | "*"> {
  const target = typeof name === "string" ? await deps.resolver.resolve(ctx.principal, name) : null;
  return target?.tool ? maskedOf(target.tool) : "*";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
