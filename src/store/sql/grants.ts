/** Grants of permission ids to users and groups, and the permissions a user ends up with. */
import { KnotError } from "../../errors.ts";
import type { GrantRecord, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import type { SqlRow } from "./sql-client.ts";

type GrantMethods = Pick<Store, "grant" | "revoke" | "listGrants" | "permissionsOf">;

/** A grant's subject as stored: `(subject_kind, subject)` columns. */
function subjectColumns(grant: GrantRecord): [kind: string, subject: string] {
  return grant.subject.kind === "user" ? ["user", grant.subject.userId] : ["group", grant.subject.group];
}

function toGrant(row: SqlRow): GrantRecord {
  const subject =
    row.subject_kind === "user"
      ? Object.freeze({ kind: "user" as const, userId: String(row.subject) })
      : Object.freeze({ kind: "group" as const, group: String(row.subject) });
  return Object.freeze({ subject, permission: String(row.permission) });
}

export function createGrantMethods({ client }: StoreContext): GrantMethods {
  // The user row stays locked (PostgreSQL) until the grant is written: it cannot be deleted in between.
  const userExists = `SELECT 1 FROM users WHERE id = ?${client.dialect.lockRows("FOR SHARE")}`;

  return {
    async grant(grant) {
      const [kind, subject] = subjectColumns(grant);
      await client.transaction(async (tx) => {
        if (kind === "user" && (await tx.query(userExists, [subject])).rowCount === 0) {
          throw new KnotError("NOT_FOUND", `No user with id ${subject}.`);
        }
        await tx.query("INSERT INTO grants (subject_kind, subject, permission) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [kind, subject, grant.permission]);
      });
    },

    async revoke(grant) {
      const [kind, subject] = subjectColumns(grant);
      const { rowCount } = await client.query("DELETE FROM grants WHERE subject_kind = ? AND subject = ? AND permission = ?", [kind, subject, grant.permission]);
      return rowCount > 0;
    },

    async listGrants() {
      return (await client.query("SELECT * FROM grants ORDER BY subject_kind, subject, permission")).rows.map(toGrant);
    },

    async permissionsOf(userId) {
      const { rows } = await client.query(
        `SELECT DISTINCT permission FROM grants
          WHERE (subject_kind = 'user' AND subject = ?)
             OR (subject_kind = 'group' AND subject IN (SELECT group_name FROM memberships WHERE user_id = ?))
          ORDER BY permission`,
        [userId, userId],
      );
      return rows.map((row) => String(row.permission));
    },
  };
}
