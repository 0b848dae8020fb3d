import { effectiveIsAdmin, hasPermission, toUserData, type Principal, type UserData } from "./principal.ts";

/**
 * The authoritative caller object that `knot:identity.user()` returns to plugin code: inert data
 * plus checks answered from the host's own record of the principal (admin passes every check).
 */
export interface Identity extends UserData {
  hasPermission(permission: string): boolean;
  inGroup(group: string): boolean;
}

export function createIdentity(principal: Principal): Identity {
  const data = toUserData(principal);
  const admin = effectiveIsAdmin(principal);
  return Object.freeze({
    ...data,
    hasPermission: (permission: string) => hasPermission(principal, String(permission)),
    inGroup: (group: string) => admin || principal.groups.includes(String(group)),
  });
}
