/**
 * The product's own events, built in one place so every surface that changes a tool or a grant
 * (the API, the web admin, the CLI) emits the same `data` to the same audience.
 */
import type { Principal } from "../identity/principal.ts";
import type { GrantRecord, UserToolRecord } from "../store/store.ts";
import type { EmitInput } from "./event-bus.ts";

/** `tool.saved` / `tool.deleted`: for the tool owner's sinks. `by` is the name of who did it. */
export function toolEvent(type: "tool.saved" | "tool.deleted", tool: UserToolRecord, by: string, cause: Principal | null): EmitInput {
  return {
    type,
    data: { toolId: tool.id, name: tool.name, kind: tool.kind, version: tool.version, by },
    audience: { kind: "owner", userId: tool.ownerId },
    cause,
  };
}

/** `grant.changed`: for admins' sinks. */
export function grantChangedEvent(change: "granted" | "revoked", subject: GrantRecord["subject"], permission: string, cause: Principal | null): EmitInput {
  const who = subject.kind === "user" ? { kind: "user", userId: subject.userId } : { kind: "group", group: subject.group };
  return { type: "grant.changed", data: { change, subject: who, permission }, audience: { kind: "admins" }, cause };
}
