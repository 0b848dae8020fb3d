/**
 * A tool or lib an admin stores for a user from a file (the CLI's `tools add`): checked like a save
 * through the API (the same input rules, lib pins, sink subscriptions), then announced like one —
 * `tool.saved` to the owner's sinks and a tool-list change to whoever may see it.
 */
import { toolEvent } from "../events/product-events.ts";
import type { UserRecord, UserToolRecord } from "../store/store.ts";
import { pinLibs } from "../tools/lib-pins.ts";
import { usersAffectedBy } from "../tools/tool-visibility.ts";
import { parseUserToolInput } from "../tools/user-tool-input.ts";
import type { AdminDeps } from "./admin.ts";

export interface ToolAdmin {
  /**
   * Creates the user's tool named `body.name`, or saves a new version of it when the name exists.
   * `checkEvents` refuses a sink's unknown event types (plugin types need the plugins loaded).
   */
  save(user: UserRecord, body: Record<string, unknown> & { name: string }, checkEvents: (events: readonly string[]) => Promise<void>): Promise<UserToolRecord>;
}

export function createToolAdmin({ store, events, toolsChanged }: AdminDeps): ToolAdmin {
  return {
    async save(user, body, checkEvents) {
      const existing = await store.findUserToolByName(user.id, body.name);
      const input = parseUserToolInput(body, existing ?? undefined);
      if (input.events) await checkEvents(input.events);
      // Its lib: imports are pinned as the API pins them (names already pinned keep their pin).
      const { pins } = await pinLibs(store, { id: user.id, groups: await store.groupsOf(user.id) }, input.code, input.language, existing?.libPins ?? null);
      const pinned = { ...input, libPins: pins };
      const tool = existing ? await store.updateUserTool(existing.id, user.id, pinned) : await store.createUserTool(user.id, pinned);
      toolsChanged(usersAffectedBy(tool, existing));
      await events.emitCommitted(toolEvent("tool.saved", tool, user.name, null));
      return tool;
    },
  };
}
