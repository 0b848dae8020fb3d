/** Grants of permissions to users and groups, for the web admin and the CLI (see admin.ts). */
import { GROUP_NAME, PERMISSION } from "../../sandbox/guest/names.ts";
import { KnotError } from "../errors.ts";
import { grantChangedEvent } from "../events/product-events.ts";
import type { Principal } from "../identity/principal.ts";
import type { GrantRecord, Store } from "../store/store.ts";
import type { AdminDeps } from "./admin.ts";

export type GrantSubject = GrantRecord["subject"];

export interface GrantAdmin {
  grant(subject: GrantSubject, permission: unknown, by: Principal | null): Promise<void>;
  /** False when there was no such grant (nothing changes, nothing is emitted). */
  revoke(subject: GrantSubject, permission: unknown, by: Principal | null): Promise<boolean>;
  /** Every grant, its subject written `user:<id>` or `group:<name>`. */
  list(): Promise<{ subject: string; permission: string }[]>;
}

function parsePermission(text: unknown): string {
  if (typeof text !== "string" || !PERMISSION.test(text)) {
    throw new KnotError("INVALID_ARGUMENT", `${JSON.stringify(text ?? null)} is not a permission id (e.g. plugin.demo.view_dashboard)`, { where: "permission" });
  }
  return text;
}

/** The API's form: `user:<id>` or `group:<name>`. */
export function parseSubject(text: unknown): GrantSubject {
  if (typeof text === "string" && text.startsWith("user:") && text.length > 5) return { kind: "user", userId: text.slice(5) };
  if (typeof text === "string" && text.startsWith("group:") && GROUP_NAME.test(text.slice(6))) return { kind: "group", group: text.slice(6) };
  throw new KnotError("INVALID_ARGUMENT", 'subject must be "user:<id>" or "group:<name>"', { where: "subject" });
}

/** The CLI's form: a user's name, or `@<group>`. */
export async function subjectNamed(store: Store, target: string): Promise<GrantSubject> {
  if (target.startsWith("@")) {
    const group = target.slice(1);
    if (!GROUP_NAME.test(group)) throw new KnotError("INVALID_ARGUMENT", `"${target}" is not a valid @group`, { where: "subject" });
    return { kind: "group", group };
  }
  const user = await store.getUserByName(target);
  if (!user) throw new KnotError("NOT_FOUND", `no user named "${target}" (see \`knot-tools users list\`)`);
  return { kind: "user", userId: user.id };
}

/** Whose visible tool set a grant change may alter: the user, or (for a group) everyone connected. */
function affected(subject: GrantSubject): string[] | undefined {
  return subject.kind === "user" ? [subject.userId] : undefined;
}

export function createGrantAdmin({ store, events, toolsChanged }: AdminDeps): GrantAdmin {
  return {
    async grant(subject, text, by) {
      const permission = parsePermission(text);
      await store.grant({ subject, permission });
      toolsChanged(affected(subject));
      await events.emitCommitted(grantChangedEvent("granted", subject, permission, by));
    },
    async revoke(subject, text, by) {
      const permission = parsePermission(text);
      if (!(await store.revoke({ subject, permission }))) return false;
      toolsChanged(affected(subject));
      await events.emitCommitted(grantChangedEvent("revoked", subject, permission, by));
      return true;
    },
    async list() {
      return (await store.listGrants()).map((g) => ({
        subject: g.subject.kind === "user" ? `user:${g.subject.userId}` : `group:${g.subject.group}`, permission: g.permission,
      }));
    },
  };
}
