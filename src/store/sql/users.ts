/** Users and group memberships. */
import { KnotError } from "../../errors.ts";
import type { GroupRecord, Store, UserRecord } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { toUser } from "./records.ts";

type UserMethods = Pick<
  Store,
  "createUser" | "getUser" | "getUserByName" | "listUsers" | "countUsers" | "setUserAdmin" | "addMembership" | "removeMembership" | "groupsOf" | "listGroups"
>;

export function createUserMethods({ client, now }: StoreContext): UserMethods {
  const { dialect } = client;
  const noSuchUser = (id: string) => new KnotError("NOT_FOUND", `No user with id ${id}.`);
  const one = async (sql: string, value: string) => {
    const [row] = (await client.query(sql, [value])).rows;
    return row ? toUser(row) : null;
  };

  return {
    async createUser({ name, isAdmin }) {
      const user: UserRecord = Object.freeze({ id: crypto.randomUUID(), name, isAdmin, createdAt: now() });
      try {
        await client.query("INSERT INTO users (id, name, is_admin, created_at) VALUES (?, ?, ?, ?)", [user.id, name, isAdmin, user.createdAt]);
      } catch (error) {
        if (dialect.isUniqueViolation(error)) throw new KnotError("CONFLICT", `A user named "${name}" already exists.`);
        throw error;
      }
      return user;
    },

    getUser: (id) => one("SELECT * FROM users WHERE id = ?", id),
    getUserByName: (name) => one("SELECT * FROM users WHERE name = ?", name),

    async listUsers() {
      return (await client.query("SELECT * FROM users ORDER BY name")).rows.map(toUser);
    },

    async countUsers() {
      const [row] = (await client.query("SELECT count(*) AS n FROM users")).rows;
      return Number(row?.n ?? 0);
    },

    async setUserAdmin(id, isAdmin) {
      const { rowCount } = await client.query("UPDATE users SET is_admin = ? WHERE id = ?", [isAdmin, id]);
      if (rowCount === 0) throw noSuchUser(id);
    },

    async addMembership(userId, group) {
      try {
        await client.query("INSERT INTO memberships (user_id, group_name) VALUES (?, ?) ON CONFLICT DO NOTHING", [userId, group]);
      } catch (error) {
        if (dialect.isForeignKeyViolation(error)) throw noSuchUser(userId);
        throw error;
      }
    },

    async removeMembership(userId, group) {
      await client.query("DELETE FROM memberships WHERE user_id = ? AND group_name = ?", [userId, group]);
    },

    async groupsOf(userId) {
      const { rows } = await client.query("SELECT group_name FROM memberships WHERE user_id = ? ORDER BY group_name", [userId]);
      return rows.map((row) => String(row.group_name));
    },

    async listGroups() {
      const { rows } = await client.query(
        "SELECT m.group_name, m.user_id FROM memberships m JOIN users u ON u.id = m.user_id ORDER BY m.group_name, u.name",
      );
      const groups = new Map<string, string[]>();
      for (const row of rows) {
        const name = String(row.group_name);
        const members = groups.get(name) ?? [];
        members.push(String(row.user_id));
        groups.set(name, members);
      }
      return [...groups].map(([name, members]): GroupRecord => Object.freeze({ name, members: Object.freeze(members) }));
    },
  };
}
