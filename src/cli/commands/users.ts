import { withAdmin } from "../admin-context.ts";
import { COMMON_OPTIONS, parse, usageError } from "../context.ts";

export async function usersCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...COMMON_OPTIONS, admin: { type: "boolean" }, groups: { type: "string" } });
  const [action, name] = positionals;
  if (action !== "add" && action !== "list") throw usageError("users: expected `users add NAME [--admin] [--groups a,b]` or `users list`");
  if (action === "add" && !name) throw usageError("users add NAME: a name of letters, digits, '.', '_' or '-' is required");
  return withAdmin(values, async ({ admin }) => {
    if (action === "add") {
      const groups = values.groups ? values.groups.split(",").map((g) => g.trim()).filter(Boolean) : [];
      const user = await admin.users.create({ name, isAdmin: values.admin === true, groups });
      process.stdout.write(`${user.id}\n`);
      return 0;
    }
    for (const user of await admin.users.describeAll()) {
      process.stdout.write(`${user.name}\t${user.id}\t${user.isAdmin ? "admin" : "user"}\t${user.groups.join(",")}\n`);
    }
    return 0;
  }, action === "add");
}
