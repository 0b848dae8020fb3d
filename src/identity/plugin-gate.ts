/**
 * The one gate in front of plugin code. Threat: a narrowed token (an assistant's) or a read-only
 * one reaching a handler, MCP tool or page its scopes leave out, because one path checked scopes
 * only for gated targets or forgot the write flag (issue 10, items 5 and 6). Guarantee: HTTP
 * dispatch, the loopback (which arrives on HTTP dispatch), the in-process `call()`, MCP plugin
 * tools and plugin pages all ask this function, so they cannot disagree.
 *
 * The rule, in order:
 *   1. a gated target needs its permission granted (admins pass);
 *   2. a scoped credential must cover `plugin.<plugin>.<name>` or the target's permission;
 *   3. a target that changes things (`write` / `destructive`) needs a credential that may write.
 */
import { KnotError } from "../errors.ts";
import { mayWrite, type Principal } from "./principal.ts";
import { scopeAllows } from "./scopes.ts";

export interface PluginTarget {
  readonly plugin: string;
  /** The handler's name (a handler or page) or the MCP tool's name. */
  readonly name: string;
  readonly permission: string | null;
  /** Declared `write = true` or `destructive = true`. */
  readonly write: boolean;
  /** What the target is, for messages: "handler", "tool" or "page". */
  readonly kind: "handler" | "tool" | "page";
}

export interface GateRefusal {
  readonly reason: "missing grant" | "scope";
  readonly detail: string;
}

/** The id a scope names a target by, whether or not it is gated. */
export function targetScopeId(target: Pick<PluginTarget, "plugin" | "name">): string {
  return `plugin.${target.plugin}.${target.name}`;
}

export function pluginGateRefusal(principal: Principal, target: PluginTarget): GateRefusal | null {
  const { permission } = target;
  if (permission !== null && !principal.user.isAdmin && !principal.granted.includes(permission)) {
    return { reason: "missing grant", detail: `needs ${permission}` };
  }
  const id = targetScopeId(target);
  if (!scopeAllows(principal.scopes, id) && !(permission !== null && scopeAllows(principal.scopes, permission))) {
    const named = permission === null ? id : `${id} or ${permission}`;
    return { reason: "scope", detail: `the token's scopes do not include ${named}` };
  }
  if (target.write && !mayWrite(principal)) {
    return { reason: "scope", detail: `a read-only token may not use ${target.plugin}/${target.name}: ${target.kind}s that change things need a token that may write` };
  }
  return null;
}

/**
 * Throws the refusal as the caller's error (403 PERMISSION_DENIED). A missing grant stays the
 * plain "permission denied" (which permission is the admin's business); a scope or read-only
 * refusal says so, since it is the caller's own credential that falls short.
 */
export function assertPluginGate(principal: Principal, target: PluginTarget): void {
  const refusal = pluginGateRefusal(principal, target);
  if (!refusal) return;
  throw new KnotError("PERMISSION_DENIED", refusal.reason === "missing grant" ? "permission denied" : `permission denied: ${refusal.detail}`);
}
