/**
 * Who may see and call which tool. Threat: an assistant (or a narrowed token) reaching a tool its
 * user was not granted, or one outside the token's scopes. Guarantee: the same functions decide
 * listing and calling, so what `tools/list` hides a direct `tools/call` refuses before any code runs.
 * What a call may do is the user's grants ∩ the token's scopes (docs/security-access.md §4.9).
 */
import { pluginGateRefusal } from "../identity/plugin-gate.ts";
import { BUILTIN_PERMISSIONS, mayWrite, type Principal } from "../identity/principal.ts";
import { scopeAllows } from "../identity/scopes.ts";
import type { ResolvedMcpTool } from "../plugins/registry.ts";
import type { UserToolSummary } from "../store/store.ts";
import { RUN_USER_TOOLS_SCOPE } from "../tools/tool-runner.ts";
import type { Refusal } from "./tool-types.ts";

function granted(principal: Principal, permission: string): boolean {
  return principal.user.isAdmin || principal.granted.includes(permission);
}

/** A permission check that tells a missing grant apart from a token scope that leaves it out. */
export function permissionRefusal(principal: Principal, permission: string): Refusal | null {
  if (!granted(principal, permission)) return { reason: "missing grant", detail: `needs ${permission}` };
  if (!scopeAllows(principal.scopes, permission)) return { reason: "scope", detail: `the token's scopes do not include ${permission}` };
  return null;
}

export function writeRefusal(principal: Principal): Refusal | null {
  return mayWrite(principal) ? null : { reason: "scope", detail: "a read-only token may not use tools that change things" };
}

/**
 * A plugin tool: the one plugin gate (src/identity/plugin-gate.ts) that handlers and pages use
 * too, with the tool's name as its scope id (`plugin.<plugin>.<tool>`).
 */
export function pluginToolRefusal(principal: Principal, tool: ResolvedMcpTool): Refusal | null {
  const { decl } = tool;
  return pluginGateRefusal(principal, { plugin: tool.plugin.name, name: decl.name, permission: decl.permission, write: decl.write, kind: "tool" });
}

/** A user tool the caller can already see (own or shared): the token must allow running user tools. */
export function userToolRefusal(principal: Principal, tool: UserToolSummary): Refusal | null {
  if (!scopeAllows(principal.scopes, RUN_USER_TOOLS_SCOPE)) {
    return { reason: "scope", detail: `the token's scopes do not include ${RUN_USER_TOOLS_SCOPE}` };
  }
  return tool.destructive === true ? writeRefusal(principal) : null;
}

/** Using MCP at all (admins pass; a scoped token must name knot.mcp). */
export function mcpRefusal(principal: Principal): Refusal | null {
  return permissionRefusal(principal, BUILTIN_PERMISSIONS.mcpUse);
}
