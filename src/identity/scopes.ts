import type { TokenScopes } from "../store/store.ts";

/**
 * A token handed to an assistant may be narrowed to scopes (003 "areas"): permission ids or globs
 * such as `plugin.metrics.*`. What a call may do is the user's permissions ∩ the token's scopes.
 */
export function scopeAllows(scopes: TokenScopes | null, permission: string): boolean {
  if (scopes === null) return true;
  return scopes.permissions.some((pattern) => matchScope(pattern, permission));
}

function matchScope(pattern: string, permission: string): boolean {
  if (pattern === "*" || pattern === permission) return true;
  if (pattern.endsWith(".*")) return permission.startsWith(pattern.slice(0, -1));
  return false;
}

/** Whether a token may use tools that change things (003 `write`). Unscoped tokens may. */
export function scopeAllowsWrite(scopes: TokenScopes | null): boolean {
  return scopes === null || scopes.write;
}

