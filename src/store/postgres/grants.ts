/** Grants of permission ids to users and groups, and the permissions a user ends up with. */
import { KnotError } from "../../errors.ts";
import { subjectColumns, toGrant } from "../grant-rows.ts";
import type { Store } from "../store.ts";
import type { StoreContext } from "./context.ts";

type GrantMethods = Pick<Store, "grant" | "revoke" | "listGrants" | "permissionsOf">;

export function createGrantMethods({ db }: StoreContext): GrantMethods {
  return {
    async grant(grant) {
      const [kind, subject] = subjectColumns(grant);
      await db.transaction(async (tx) => {
        // FOR SHARE: the user cannot be deleted between this check and the insert.
        if (kind === "user" && (await tx.query("SELECT 1 FROM users WHERE id = $1 FOR SHARE", [subject])).rowCount === 0) {
          throw new KnotError("NOT_FOUND", `No user with id ${subject}.`);
        }
        await tx.query("INSERT INTO grants (subject_kind, subject, permission) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [
          kind,
          subject,
          grant.permission,
        ]);
      });
    },

    async revoke(grant) {
      const [kind, subject] = subjectColumns(grant);
      const { rowCount } = await db.query("DELETE FROM grants WHERE subject_kind = $1 AND subject = $2 AND permission = $3", [
        kind,
        subject,
        grant.permission,
      ]);
      return rowCount > 0;
    },

    async listGrants() {
      return (await db.query("SELECT * FROM grants ORDER BY subject_kind, subject, permission")).rows.map(toGrant);
    },

    async permissionsOf(userId) {
      const { rows } = await db.query(
        `SELECT DISTINCT permission FROM grants
          WHERE (subject_kind = 'user' AND subject = $1)
             OR (subject_kind = 'group' AND subject IN (SELECT group_name FROM memberships WHERE user_id = $1))
          ORDER BY permission`,
        [userId],
      );
      return rows.map((row) => String(row.permission));
    },
  };
}
