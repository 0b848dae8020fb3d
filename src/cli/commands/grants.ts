import { subjectNamed } from "../../admin/grants.ts";
import { KnotError } from "../../errors.ts";
import { withAdmin } from "../admin-context.ts";
import { COMMON_OPTIONS, parse, usageError } from "../context.ts";

/**
 * `grant|revoke USER|@GROUP PERMISSION`, through the admin layer like the web's: grant.changed goes
 * to admins' sinks (the outbox is in the store; a server delivers it) and the change is announced to
 * MCP clients of servers on the same database (the change bus).
 */
function grantLike(action: "grant" | "revoke") {
  return async (args: string[]): Promise<number> => {
    const { values, positionals } = parse(args, COMMON_OPTIONS);
    const [target, permission] = positionals;
    if (!target || !permission || positionals.length !== 2) throw usageError(`${action} USER|@GROUP PERMISSION`);
    return withAdmin(values, async ({ admin, store }) => {
      const subject = await subjectNamed(store, target);
      if (action === "grant") await admin.grants.grant(subject, permission, null);
      else if (!(await admin.grants.revoke(subject, permission, null))) throw new KnotError("NOT_FOUND", `${target} has no grant of ${permission}`);
      return 0;
    });
  };
}

export const grantCommand = grantLike("grant");
export const revokeCommand = grantLike("revoke");
