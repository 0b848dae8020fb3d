/**
 * `knot:identity` — who is calling, for in-code decisions.
 *   import { user } from "knot:identity";
 *   if (!user().inGroup("platform")) returnError("platform group only");
 * Answered from the run's data (already narrowed by the credential's scopes); the object is frozen
 * and the same on every call. An admin passes every check.
 */
import { holdsAll } from "./identity-rules.ts";
import * as I from "./intrinsics.ts";
import { freshUser, type GuestUserData } from "./runtime.ts";

export interface User extends GuestUserData {
  /** A permission id, or a list meaning all of them (identity-rules.ts). */
  hasPermission(id: string | readonly string[]): boolean;
  inGroup(group: string | readonly string[]): boolean;
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
  // Built with captured intrinsics only: user code may have replaced Array.prototype's iterator by now.
  const held: string[] = [];
  for (let index = 0; index < permissions.length; index += 1) I.ArrayPush(held, permissions[index]!);
  for (let index = 0; index < pluginPermissions.length; index += 1) I.ArrayPush(held, pluginPermissions[index]!);
  I.ObjectFreeze(held);
  return I.ObjectFreeze({
    id: data.id,
    name: data.name,
    isAdmin,
    groups,
    permissions,
    pluginPermissions,
    hasPermission(id: string | readonly string[]): boolean {
      // pluginPermissions is a subset of permissions in every run the host starts; both are read as before.
      return holdsAll(isAdmin, held, id);
    },
    inGroup(group: string | readonly string[]): boolean {
      return holdsAll(isAdmin, groups, group);
    },
  });
}

export function user(): User {
  caller ??= buildCaller();
  return caller;
}
