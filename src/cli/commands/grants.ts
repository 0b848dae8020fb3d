import { KnotError } from "../../errors.ts";
import { createEventBus } from "../../events/event-bus.ts";
import { grantChangedEvent } from "../../events/product-events.ts";
import { silentLogger } from "../../log.ts";
import { openStore } from "../../store/index.ts";
import type { GrantRecord, Store } from "../../store/store.ts";
import { COMMON_OPTIONS, parse, resolveConfig, usageError } from "../context.ts";
import { GROUP_NAME } from "./users.ts";

const PERMISSION = /^[a-z0-9_]+(\.[a-z0-9_-]+)*$/;

async function subjectOf(store: Store, target: string): Promise<GrantRecord["subject"]> {
  if (target.startsWith("@")) {
    const group = target.slice(1);
    if (!GROUP_NAME.test(group)) throw usageError(`"${target}" is not a valid @group`);
    return { kind: "group", group };
  }
  const user = await store.getUserByName(target);
  if (!user) throw new KnotError("NOT_FOUND", `no user named "${target}" (see \`knot-tools users list\`)`);
  return { kind: "user", userId: user.id };
}

function grantLike(action: "grant" | "revoke") {
  return async (args: string[]): Promise<number> => {
    const { values, positionals } = parse(args, COMMON_OPTIONS);
    const [target, permission] = positionals;
    if (!target || !permission || positionals.length !== 2) throw usageError(`${action} USER|@GROUP PERMISSION`);
    if (!PERMISSION.test(permission)) throw usageError(`"${permission}" is not a permission id (e.g. plugin.metrics.export)`);
    const store = await openStore({ path: resolveConfig(values).database });
    try {
      const subject = await subjectOf(store, target);
      if (action === "grant") await store.grant({ subject, permission });
      else if (!(await store.revoke({ subject, permission }))) throw new KnotError("NOT_FOUND", `${target} has no grant of ${permission}`);
      // Like the API: admins' sinks hear of it (the outbox is in the store; a server delivers it).
      await createEventBus(store, silentLogger).emit(grantChangedEvent(action === "grant" ? "granted" : "revoked", subject, permission, null));
      return 0;
    } finally {
      await store.close();
    }
  };
}

export const grantCommand = grantLike("grant");
export const revokeCommand = grantLike("revoke");
