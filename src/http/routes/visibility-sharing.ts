import type { Store, UserToolSummary } from "../../store/store.ts";

/** Active tools (kind tool) of other users that `userId` cannot see: the "sharing" lines of the visibility report. */
export async function otherUsersTools(store: Store, userId: string, visibleIds: ReadonlySet<string>): Promise<UserToolSummary[]> {
  const out: UserToolSummary[] = [];
  for (const other of await store.listUsers()) {
    if (other.id === userId) continue;
    for (const tool of await store.listUserToolsVisibleTo(other.id, [])) {
      if (tool.ownerId === other.id && tool.kind === "tool" && tool.active && !visibleIds.has(tool.id)) out.push(tool);
    }
  }
  return out;
}
