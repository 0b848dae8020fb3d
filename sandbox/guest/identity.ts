/**
 * `knot:identity` — who is calling, for in-code decisions.
 *   import { user } from "knot:identity";
 *   if (!user().inGroup("platform")) returnError("platform group only");
 * Answered from the run's data (already narrowed by the credential's scopes); the object is frozen
 * and the same on every call. An admin passes every check.
 */
import { I } from "./intrinsics.ts";
import { freshUser, type GuestUserData } from "./runtime.ts";

export interface User extends GuestUserData {
  hasPermission(id: string): boolean;
  inGroup(group: string): boolean;
}

function frozenList(list: readonly unknown[]): readonly string[] {
  const copy: string[] = [];
  for (let index = 0; index < list.length; index += 1) {
    const item = list[index];
    if (typeof item === "string") I.ArrayPush(copy, item);
  }
  return I.ObjectFreeze(copy);
}

let caller: User | undefined;

function buildCaller(): User {
  const data = freshUser();
  const isAdmin = data.isAdmin === true;
  const groups = frozenList(data.groups);
  const permissions = frozenList(data.permissions);
  const pluginPermissions = frozenList(data.pluginPermissions);
  return I.ObjectFreeze({
    id: data.id,
    name: data.name,
    isAdmin,
    groups,
    permissions,
    pluginPermissions,
    hasPermission(id: string): boolean {
      return isAdmin || I.ArrayIncludes(permissions, id) || I.ArrayIncludes(pluginPermissions, id);
    },
    inGroup(group: string): boolean {
      return isAdmin || I.ArrayIncludes(groups, group);
    },
  });
}

export function user(): User {
  caller ??= buildCaller();
  return caller;
}
