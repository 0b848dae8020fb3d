/**
 * Who may read a user tool or lib, and which of its saved versions. Threat: sharing a tool today
 * must not publish what its owner saved while it was private (a pasted key, a draft they removed).
 * Rule: the owner sees every version; anyone else sees the tool while it is active and shared with
 * everyone or one of their groups, and of its history only the versions whose own saved sharing
 * included them (so versions saved while private, or shared with a group they are not in, stay
 * hidden). Runs follow the same rule for pinned lib versions.
 */
import type { UserToolInput, UserToolRecord } from "../store/store.ts";

export interface Reader {
  readonly user: { readonly id: string };
  readonly groups: readonly string[];
}

const sharedWith = (reader: Reader, sharing: UserToolInput["sharing"]): boolean =>
  sharing === "everyone" || (sharing.startsWith("@") && reader.groups.includes(sharing.slice(1)));

export function toolVisible(reader: Reader, tool: Pick<UserToolRecord, "ownerId" | "active" | "sharing">): boolean {
  return tool.ownerId === reader.user.id || (tool.active && sharedWith(reader, tool.sharing));
}

/** A saved version of a tool the reader can see (check toolVisible first). */
export function versionVisible(reader: Reader, tool: Pick<UserToolRecord, "ownerId">, saved: Pick<UserToolInput, "sharing">): boolean {
  return tool.ownerId === reader.user.id || sharedWith(reader, saved.sharing);
}

/**
 * Whose tool list a saved or deleted user tool may change: only the owner's while it is (and was)
 * private; anyone's once it is or was shared (group membership is not looked up: a hint is cheap).
 */
export function usersAffectedBy(tool: Pick<UserToolRecord, "ownerId" | "sharing">, previous?: Pick<UserToolRecord, "sharing"> | null): string[] | undefined {
  return tool.sharing === "private" && (previous?.sharing ?? "private") === "private" ? [tool.ownerId] : undefined;
}
