/**
 * The caller as inert data, as the host sends it with a job and the guest reads it (knot:identity).
 * Permissions are already narrowed by the credential's scopes. One declaration for both sides:
 * sandbox/protocol.ts re-exports it as GuestUser.
 */
export interface GuestUserData {
  readonly id: string;
  readonly name: string;
  readonly isAdmin: boolean;
  readonly groups: readonly string[];
  readonly permissions: readonly string[];
  readonly pluginPermissions: readonly string[];
}
