/** Users and group memberships, for the web admin and the CLI (see admin.ts). */
import { GROUP_NAME, USER_NAME } from "../../sandbox/guest/names.ts";
import { KnotError } from "../errors.ts";
import type { UserRecord } from "../store/store.ts";
import type { AdminDeps } from "./admin.ts";

export interface DescribedUser extends UserRecord {
  readonly groups: string[];
  /** Permissions granted to the user directly (not through a group). */
  readonly grants: string[];
}

export interface UserAdmin {
  /** A new user, with its first groups; CONFLICT when the name is taken. */
  create(input: { name: unknown; isAdmin?: unknown; groups?: unknown }): Promise<UserRecord>;
  /** `actorId` may not take away their own admin flag (no accidental lock-out). */
  setAdmin(actorId: string | null, userId: string, isAdmin: unknown): Promise<void>;
  /** Makes the user's groups exactly `groups`; answers them as stored. */
  setGroups(userId: string, groups: unknown): Promise<string[]>;
  describeAll(): Promise<DescribedUser[]>;
  /** NOT_FOUND names the user. */
  named(name: string): Promise<UserRecord>;
}

function parseUserName(name: unknown): string {
  if (typeof name !== "string" || !USER_NAME.test(name)) throw new KnotError("INVALID_ARGUMENT", "name must be 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit", { where: "name" });
  return name;
}

function parseGroups(groups: unknown): string[] {
  if (!Array.isArray(groups)) throw new KnotError("INVALID_ARGUMENT", "groups must be a list of group names", { where: "groups" });
  const bad = groups.find((g) => typeof g !== "string" || !GROUP_NAME.test(g));
  if (bad !== undefined) throw new KnotError("INVALID_ARGUMENT", `group ${JSON.stringify(bad)} is not a group name: 1–64 lower-case letters, digits, _ or -`, { where: "groups" });
  return [...new Set(groups as string[])];
}

function parseIsAdmin(value: unknown): boolean {
  if (typeof value !== "boolean") throw new KnotError("INVALID_ARGUMENT", "isAdmin must be true or false", { where: "isAdmin" });
  return value;
}

export function createUserAdmin({ store, toolsChanged }: AdminDeps): UserAdmin {
  return {
    async create(input) {
      const name = parseUserName(input.name);
      const isAdmin = input.isAdmin === undefined ? false : parseIsAdmin(input.isAdmin);
      const groups = input.groups === undefined ? [] : parseGroups(input.groups);
      const user = await store.createUser({ name, isAdmin });
      for (const group of groups) await store.addMembership(user.id, group);
      return user;
    },
    async setAdmin(actorId, userId, value) {
      const isAdmin = parseIsAdmin(value);
      if (userId === actorId && !isAdmin) throw new KnotError("CONFLICT", "you cannot remove your own admin rights; ask another admin");
      await store.setUserAdmin(userId, isAdmin);
      // An admin holds every permission: what the user's assistants see changes with the flag.
      toolsChanged([userId]);
    },
    async setGroups(userId, value) {
      const wanted = parseGroups(value);
      if (!(await store.getUser(userId))) throw new KnotError("NOT_FOUND", "no such user");
      const current = await store.groupsOf(userId);
      for (const group of current) if (!wanted.includes(group)) await store.removeMembership(userId, group);
      for (const group of wanted) if (!current.includes(group)) await store.addMembership(userId, group);
      toolsChanged([userId]);
      return store.groupsOf(userId);
    },
    async describeAll() {
      const [users, grants] = await Promise.all([store.listUsers(), store.listGrants()]);
      return Promise.all(users.map(async (user) => ({
        ...user,
        groups: await store.groupsOf(user.id),
        grants: grants.filter((g) => g.subject.kind === "user" && g.subject.userId === user.id).map((g) => g.permission),
      })));
    },
    async named(name) {
      const user = await store.getUserByName(name);
      if (!user) throw new KnotError("NOT_FOUND", `no user named "${name}"`);
      return user;
    },
  };
}
