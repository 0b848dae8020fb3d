/** Users and group memberships. */
import { KnotError } from "../../errors.ts";
import type { GroupRecord, Store, UserRecord } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { isForeignKeyViolation, isUniqueViolation } from "./pg-driver.ts";
import { toUser } from "./rows.ts";

type UserMethods = Pick<
  Store,
  | "createUser"
  | "getUser"
  | "getUserByName"
  | "listUsers"
  | "countUsers"
  | "setUserAdmin"
  | "addMembership"
  | "removeMembership"
  | "groupsOf"
  | "listGroups"
>;

export function createUserMethods({ db, now }: StoreContext): UserMethods {
  const noSuchUser = (id: string) => new KnotError("NOT_FOUND", `No user with id ${id}.`);

  return {
    async createUser({ name, isAdmin }) {
      const user: UserRecord = Object.freeze({ id: crypto.randomUUID(), name, isAdmin, createdAt: now() });
      try {
        await db.query("INSERT INTO users (id, name, is_admin, created_at) VALUES ($1, $2, $3, $4)", [user.id, name, isAdmin, user.createdAt]);
      } catch (error) {
        if (isUniqueViolation(error)) throw new KnotError("CONFLICT", `A user named "${name}" already exists.`);
        throw error;
      }
      return user;
    },

    async getUser(id) {
      const [row] = (await db.query("SELECT * FROM users WHERE id = $1", [id])).rows;
      return row ? toUser(row) : null;
    },

    async getUserByName(name) {
      const [row] = (await db.query("SELECT * FROM users WHERE name = $1", [name])).rows;
      return row ? toUser(row) : null;
    },

    async listUsers() {
      return (await db.query("SELECT * FROM users ORDER BY name")).rows.map(toUser);
    },

    async countUsers() {
      const [row] = (await db.query("SELECT count(*) AS n FROM users")).rows;
      return Number(row?.n ?? 0);
    },

    async setUserAdmin(id, isAdmin) {
      const { rowCount } = await db.query("UPDATE users SET is_admin = $1 WHERE id = $2", [isAdmin, id]);
      if (rowCount === 0) throw noSuchUser(id);
    },

    async addMembership(userId, group) {
      try {
        await db.query("INSERT INTO memberships (user_id, group_name) VALUES ($1, $2) ON CONFLICT DO NOTHING", [userId, group]);
      } catch (error) {
        if (isForeignKeyViolation(error)) throw noSuchUser(userId);
        throw error;
      }
    },

    async removeMembership(userId, group) {
      await db.query("DELETE FROM memberships WHERE user_id = $1 AND group_name = $2", [userId, group]);
    },

    async groupsOf(userId) {
      const { rows } = await db.query("SELECT group_name FROM memberships WHERE user_id = $1 ORDER BY group_name", [userId]);
      return rows.map((row) => String(row.group_name));
    },

    async listGroups() {
      const { rows } = await db.query(
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
