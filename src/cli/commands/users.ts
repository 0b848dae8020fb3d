import { KnotError } from "../../errors.ts";
import { openStore } from "../../store/index.ts";
import { COMMON_OPTIONS, parse, resolveConfig, usageError } from "../context.ts";

const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const GROUP_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export async function usersCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { ...COMMON_OPTIONS, admin: { type: "boolean" }, groups: { type: "string" } });
  const [action, name] = positionals;
  const store = await openStore({ path: resolveConfig(values).database });
  try {
    if (action === "add") {
      if (!name || !USER_NAME.test(name)) throw usageError("users add NAME: a name of letters, digits, '.', '_' or '-' is required");
      const groups = values.groups ? values.groups.split(",").map((g) => g.trim()).filter(Boolean) : [];
      const badGroup = groups.find((g) => !GROUP_NAME.test(g));
      if (badGroup) throw usageError(`group "${badGroup}" is not valid: use a-z, 0-9, _ and -`);
      if (await store.getUserByName(name)) throw new KnotError("CONFLICT", `user "${name}" already exists`);
      const user = await store.createUser({ name, isAdmin: values.admin === true });
      for (const group of groups) await store.addMembership(user.id, group);
      process.stdout.write(`${user.id}\n`);
      return 0;
    }
    if (action === "list") {
      for (const user of await store.listUsers()) {
        const groups = await store.groupsOf(user.id);
        process.stdout.write(`${user.name}\t${user.id}\t${user.isAdmin ? "admin" : "user"}\t${groups.join(",")}\n`);
      }
      return 0;
    }
    throw usageError("users: expected `users add NAME [--admin] [--groups a,b]` or `users list`");
  } finally {
    await store.close();
  }
}

export { GROUP_NAME, USER_NAME };
