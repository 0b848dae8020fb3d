/** The shapes the MCP surface passes around: candidate tools, refusals, and call contexts. */
import type { RunEvent } from "../../sandbox/protocol.ts";
import type { Principal } from "../identity/principal.ts";
import type { JsonSchemaObject, ParameterDecl } from "../plugins/manifest-types.ts";
import type { ResolvedMcpTool } from "../plugins/registry.ts";
import type { UserToolSummary } from "../store/store.ts";
import type { InputRound } from "./input-rounds.ts";
import type { CallToolResult } from "./sdk.ts";

/** Why a tool is not visible to a caller (the visibility report's words). */
export type HiddenReason = "missing grant" | "scope" | "sharing" | "shadowed" | "ambiguous" | "inactive";

export interface Refusal {
  readonly reason: HiddenReason;
  readonly detail: string;
}

/** What one call needs from its surroundings (HTTP session, stdio, or a nested execute_tool). */
export interface CallContext {
  readonly principal: Principal;
  /** Aborted on client cancellation or when the HTTP request goes away. */
  readonly signal: AbortSignal;
  readonly requestId: string | null;
  /** `name/version` of the MCP client (initialize, or 2026 `_meta` clientInfo); null when unknown. */
  readonly client: string | null;
  /** Progress and log events from the running tool, forwarded as MCP notifications. */
  readonly emit: (event: RunEvent) => void;
  /** This round's answers to what the tool asks (elicitation, sampling, roots); null outside an MCP call. */
  readonly input: InputRound | null;
  /** Nesting depth (execute_tool calls one level down). */
  readonly depth: number;
  /** The request came in revision 2026-07-28 (its routing headers, `Mcp-Param-*` among them, are checked). */
  readonly modern: boolean;
}

/** A tool built into the MCP surface. */
export interface BootTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: readonly ParameterDecl[];
  readonly inputSchema: JsonSchemaObject;
  readonly readOnly: boolean;
  readonly destructive: boolean;
  /** null when the caller may use it; otherwise why not. */
  gate(principal: Principal): Refusal | null;
  run(ctx: CallContext, args: Record<string, unknown>): Promise<CallToolResult>;
}

export type CandidateTool =
  | { readonly kind: "boot"; readonly name: string; readonly boot: BootTool }
  | { readonly kind: "user"; readonly name: string; readonly user: UserToolSummary }
  | { readonly kind: "plugin"; readonly name: string; readonly plugin: ResolvedMcpTool };

export type Verdict =
  | { readonly tool: CandidateTool; readonly visible: true }
  | { readonly tool: CandidateTool; readonly visible: false; readonly refusal: Refusal };
