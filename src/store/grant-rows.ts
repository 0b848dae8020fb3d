/** How a grant is stored in either backend: `(subject_kind, subject, permission)` columns. */
import type { GrantRecord } from "./store.ts";

export function subjectColumns(grant: GrantRecord): [kind: string, subject: string] {
  return grant.subject.kind === "user" ? ["user", grant.subject.userId] : ["group", grant.subject.group];
}

export function toGrant(row: Readonly<Record<string, unknown>>): GrantRecord {
  const subject =
    row.subject_kind === "user"
      ? Object.freeze({ kind: "user" as const, userId: String(row.subject) })
      : Object.freeze({ kind: "group" as const, group: String(row.subject) });
  return Object.freeze({ subject, permission: String(row.permission) });
}
