import type { GuestUser } from "../../sandbox/protocol.ts";
import type { TokenScopes, UserRecord } from "../store/store.ts";
import { scopeAllows, scopeAllowsWrite } from "./scopes.ts";

/** Built-in permission ids (not owned by any plugin). */
export const BUILTIN_PERMISSIONS = Object.freeze({
  /** Use the MCP endpoint at all. */
  mcpUse: "knot.mcp",
  /** Create, change and delete one's own user tools (API, editor and the authoring boot tools). */
  toolsAuthor: "knot.tools.author",
});

/**
 * Who is calling, as the host knows it: the stored user, their effective grants, and the
 * credential they came with. Authorisation is decided from this, never from what a caller claims.
 */
export interface Principal {
  readonly user: UserRecord;
  readonly groups: readonly string[];
  /** Granted ids (direct and through groups), before scopes. */
  readonly granted: readonly string[];
  readonly scopes: TokenScopes | null;
  readonly tokenId: string | null;
  /** Set when the credential is an OAuth connection: the client it was lent to (for the audit log). */
  readonly clientName?: string | null;
  /**
   * Only on a loopback principal whose run an MCP tool call started: the assistant of that call,
   * which the handlers the run calls see as `request.assistant` (null or absent: none).
   */
  readonly assistant?: { readonly client: string | null; readonly connection: string | null } | null;
  /** The credential kind: an API token, a web session, a per-run loopback token, or the local CLI. */
  readonly via: "token" | "session" | "loopback" | "cli";
}

/**
 * The caller as inert data: what `request.user` holds and what a sandbox run is given — one
 * shape on both sides of the sandbox boundary, declared in its protocol.
 */
export type UserData = GuestUser;

/**
 * An admin passes every check, unless the credential is scoped: a scoped admin token lends only
 * its scopes (so it is reported as not admin), which keeps "user ∩ scopes" true for admins too.
 */
export function effectiveIsAdmin(principal: Principal): boolean {
  return principal.user.isAdmin && (principal.scopes === null || scopeAllows(principal.scopes, "*"));
}

export function hasPermission(principal: Principal, permission: string): boolean {
  if (!scopeAllows(principal.scopes, permission)) return false;
  return principal.user.isAdmin || principal.granted.includes(permission);
}

export function mayWrite(principal: Principal): boolean {
  return scopeAllowsWrite(principal.scopes);
}

/** The user data of each deep-frozen principal (the authenticator's cached ones serve every request of a token). */
const userDataOf = new WeakMap<Principal, UserData>();

export function toUserData(principal: Principal): UserData {
  // Only an object nobody can change may be answered from memory; any other is read afresh.
  const frozen = Object.isFrozen(principal) && Object.isFrozen(principal.user) && Object.isFrozen(principal.granted) && Object.isFrozen(principal.groups) && (principal.scopes === null || (Object.isFrozen(principal.scopes) && Object.isFrozen(principal.scopes.permissions)));
  if (!frozen) return readUserData(principal);
  let data = userDataOf.get(principal);
  if (data === undefined) userDataOf.set(principal, (data = readUserData(principal)));
  return data;
}

function readUserData(principal: Principal): UserData {
  const permissions = principal.granted.filter((id) => scopeAllows(principal.scopes, id));
  return Object.freeze({
    id: principal.user.id,
    name: principal.user.name,
    isAdmin: effectiveIsAdmin(principal),
    groups: Object.freeze([...principal.groups]),
    permissions: Object.freeze(permissions),
    pluginPermissions: Object.freeze(permissions.filter((id) => id.startsWith("plugin."))),
  });
}
