/** Users and group memberships. */
import { KnotError } from "../../errors.ts";
import type { GroupRecord, Store, UserRecord } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { toUser } from "./rows.ts";
import { isForeignKeyViolation, isUniqueViolation } from "./sqlite-driver.ts";

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
        db.run("INSERT INTO users (id, name, is_admin, created_at) VALUES (?, ?, ?, ?)", user.id, name, isAdmin ? 1 : 0, user.createdAt);
      } catch (error) {
        if (isUniqueViolation(error)) throw new KnotError("CONFLICT", `A user named "${name}" already exists.`);
        throw error;
      }
      return user;
    },

    async getUser(id) {
      const row = db.get("SELECT * FROM users WHERE id = ?", id);
      return row ? toUser(row) : null;
    },

    async getUserByName(name) {
      const row = db.get("SELECT * FROM users WHERE name = ?", name);
      return row ? toUser(row) : null;
    },

    async listUsers() {
      return db.all("SELECT * FROM users ORDER BY name").map(toUser);
    },

    async countUsers() {
      return Number(db.get("SELECT count(*) AS n FROM users")?.n ?? 0);
    },

    async setUserAdmin(id, isAdmin) {
      const { changes } = db.run("UPDATE users SET is_admin = ? WHERE id = ?", isAdmin ? 1 : 0, id);
      if (changes === 0) throw noSuchUser(id);
    },

    async addMembership(userId, group) {
      try {
        db.run("INSERT OR IGNORE INTO memberships (user_id, group_name) VALUES (?, ?)", userId, group);
      } catch (error) {
        if (isForeignKeyViolation(error)) throw noSuchUser(userId);
        throw error;
      }
    },

    async removeMembership(userId, group) {
      db.run("DELETE FROM memberships WHERE user_id = ? AND group_name = ?", userId, group);
    },

    async groupsOf(userId) {
      return db.all("SELECT group_name FROM memberships WHERE user_id = ? ORDER BY group_name", userId).map((row) => String(row.group_name));
    },

    async listGroups() {
      const rows = db.all(
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
