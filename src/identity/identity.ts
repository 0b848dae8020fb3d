import { holdsAll } from "../../sandbox/guest/identity-rules.ts";
import { toUserData, type Principal, type UserData } from "./principal.ts";

/**
 * The authoritative caller object that `knot:identity.user()` returns to plugin code: inert data
 * plus checks answered by the one rule user tools use too (sandbox/guest/identity-rules.ts): from
 * the caller's scope-narrowed data, a list meaning all of its entries, an admin passing every check.
 */
export interface Identity extends UserData {
  hasPermission(permission: string | readonly string[]): boolean;
  inGroup(group: string | readonly string[]): boolean;
}

export function createIdentity(principal: Principal): Identity {
  const data = toUserData(principal);
  return Object.freeze({
    ...data,
    hasPermission: (permission: string | readonly string[]) => holdsAll(data.isAdmin, data.permissions, permission),
    inGroup: (group: string | readonly string[]) => holdsAll(data.isAdmin, data.groups, group),
  });
}
