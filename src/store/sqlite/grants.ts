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
      db.transaction(() => {
        if (kind === "user" && !db.get("SELECT 1 FROM users WHERE id = ?", subject)) {
          throw new KnotError("NOT_FOUND", `No user with id ${subject}.`);
        }
        db.run("INSERT OR IGNORE INTO grants (subject_kind, subject, permission) VALUES (?, ?, ?)", kind, subject, grant.permission);
      });
    },

    async revoke(grant) {
      const [kind, subject] = subjectColumns(grant);
      const { changes } = db.run(
        "DELETE FROM grants WHERE subject_kind = ? AND subject = ? AND permission = ?",
        kind,
        subject,
        grant.permission,
      );
      return changes > 0;
    },

    async listGrants() {
      return db.all("SELECT * FROM grants ORDER BY subject_kind, subject, permission").map(toGrant);
    },

    async permissionsOf(userId) {
      const rows = db.all(
        `SELECT DISTINCT permission FROM grants
          WHERE (subject_kind = 'user' AND subject = ?1)
             OR (subject_kind = 'group' AND subject IN (SELECT group_name FROM memberships WHERE user_id = ?1))
          ORDER BY permission`,
        userId,
      );
      return rows.map((row) => String(row.permission));
    },
  };
}
