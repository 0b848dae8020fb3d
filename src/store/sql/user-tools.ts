/**
 * User tools and libs. Every save is a new version, written in the same transaction as the tool
 * row, so the history is never behind the tool. An update locks the tool's row (PostgreSQL: FOR
 * UPDATE; SQLite: its write transaction) before it checks `expectedVersion`, so two instances
 * saving at once cannot both win: the second waits, then sees the first one's version and gets a
 * CONFLICT. Visibility decides who may even learn a tool exists: others' tools are listed only
 * when active and shared with everyone or with a group the caller is in.
 */
import { KnotError } from "../../errors.ts";
import type { Store, UserToolInput } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { normalizeToolInput, toUserTool, toUserToolVersion } from "./records.ts";
import { createSummaryInterner, STAMP_COLUMNS } from "./summary-interner.ts";
import type { SqlQueryable, SqlValue } from "./sql-client.ts";

type UserToolMethods = Pick<
  Store,
  | "createUserTool"
  | "updateUserTool"
  | "getUserTool"
  | "findUserToolByName"
  | "listUserToolsVisibleTo"
  | "deleteUserTool"
  | "listUserToolVersions"
  | "getUserToolVersion"
>;

/** The editable columns, in the order of `editableValues`. */
const EDITABLE = "name, kind, description, language, parameters, code, sharing, active, read_only, destructive, sink_events, lib_pins";
const EDITABLE_PLACEHOLDERS = EDITABLE.split(",").map(() => "?").join(", ");
/** Tool rows with their owner's name (shared tools are called by `<owner>__<name>`). */
const SELECT_TOOLS = "SELECT t.*, u.name AS owner_name FROM user_tools t JOIN users u ON u.id = t.owner_id";
/** The same without the code (see UserToolSummary), and a listing's first read: each tool's stamp (summary-interner.ts). */
const SUMMARY_COLUMNS = ["id", "owner_id", "name", "kind", "description", "language", "parameters", "sharing", "active", "read_only", "destructive", "sink_events", "lib_pins", "version", "created_at", "updated_at"];
const joined = (columns: readonly string[]) => `SELECT ${columns.map((column) => `t.${column}`).join(", ")}, u.name AS owner_name FROM user_tools t JOIN users u ON u.id = t.owner_id`;
export const SELECT_SUMMARIES = joined(SUMMARY_COLUMNS);
const SELECT_STAMPS = joined(STAMP_COLUMNS);

function editableValues(tool: UserToolInput): SqlValue[] {
  return [
    tool.name,
    tool.kind === "sink" ? "tool" : tool.kind,
    tool.description,
    tool.language,
    JSON.stringify(tool.parameters),
    tool.code,
    tool.sharing,
    tool.active,
    tool.readOnly ?? false,
    tool.destructive ?? false,
    tool.kind === "sink" ? JSON.stringify(tool.events ?? []) : null,
    JSON.stringify(tool.libPins ?? []),
  ];
}

/** The largest value of a PostgreSQL INTEGER column (SQLite's are wider). */
const MAX_INT4 = 2 ** 31 - 1;

export function createUserToolMethods({ client, now }: StoreContext): UserToolMethods {
  const { dialect } = client;
  const lockTool = `SELECT name, version FROM user_tools WHERE id = ?${dialect.lockRows("FOR UPDATE")}`;
  const sharedWith = `${SELECT_STAMPS}
    WHERE t.owner_id <> ? AND t.active
      AND (t.sharing = 'everyone' OR ${dialect.inList("t.sharing")})
    ORDER BY t.name, u.name, t.created_at, t.${dialect.insertionOrder}`;

  // Every user's listing holds the same shared tools: one frozen record per tool version for all of
  // them, not a copy (and a parse of its parameters) per user and listing.
  const summaries = createSummaryInterner();

  async function getTool(db: SqlQueryable, id: string) {
    const [row] = (await db.query(`${SELECT_TOOLS} WHERE t.id = ?`, [id])).rows;
    return row ? toUserTool(row) : null;
  }

  async function saveVersion(tx: SqlQueryable, toolId: string, version: number, savedBy: string, savedAt: string, tool: UserToolInput) {
    await tx.query("INSERT INTO user_tool_versions (tool_id, version, saved_at, saved_by, snapshot) VALUES (?, ?, ?, ?, ?)", [
      toolId,
      version,
      savedAt,
      savedBy,
      JSON.stringify(tool),
    ]);
  }

  /** Refuses a new tool when the owner (row locked until the insert commits) already has `maxOwned`. */
  async function withinQuota(tx: SqlQueryable, ownerId: string, maxOwned: number) {
    const [owner] = (await tx.query(`SELECT id FROM users WHERE id = ?${dialect.lockRows("FOR UPDATE")}`, [ownerId])).rows;
    if (owner === undefined) return; // the insert names the missing owner (NOT_FOUND)
    const [counted] = (await tx.query("SELECT count(*) AS owned FROM user_tools WHERE owner_id = ?", [ownerId])).rows;
    if (Number(counted?.owned) >= maxOwned) {
      throw new KnotError("QUOTA_EXCEEDED", `You already have ${maxOwned} tools, libs and sinks, the most one user may keep (quotas.user_tools): delete one you no longer need first.`, { where: "quotas.user_tools" });
    }
  }

  /** Runs a write transaction, turning a name clash (or, on create, a missing owner) into a KnotError. */
  async function writing<T>(toolName: string, work: (tx: SqlQueryable) => Promise<T>, ownerId?: string): Promise<T> {
    try {
      return await client.transaction(work);
    } catch (error) {
      if (dialect.isUniqueViolation(error)) throw new KnotError("CONFLICT", `The owner already has a tool named "${toolName}".`);
      if (ownerId !== undefined && dialect.isForeignKeyViolation(error)) throw new KnotError("NOT_FOUND", `No user with id ${ownerId}.`);
      throw error;
    }
  }

  return {
    async createUserTool(ownerId, input, maxOwned) {
      const tool = normalizeToolInput(input);
      const id = crypto.randomUUID();
      const at = now();
      return writing(
        tool.name,
        async (tx) => {
          if (maxOwned !== undefined) await withinQuota(tx, ownerId, maxOwned);
          await tx.query(
            `INSERT INTO user_tools (id, owner_id, ${EDITABLE}, version, created_at, updated_at) VALUES (?, ?, ${EDITABLE_PLACEHOLDERS}, 1, ?, ?)`,
            [id, ownerId, ...editableValues(tool), at, at],
          );
          await saveVersion(tx, id, 1, ownerId, at, tool);
          return (await getTool(tx, id))!;
        },
        ownerId,
      );
    },

    async updateUserTool(id, savedBy, input, expectedVersion) {
      const tool = normalizeToolInput(input);
      const at = now();
      return writing(tool.name, async (tx) => {
        const [locked] = (await tx.query(lockTool, [id])).rows;
        if (locked === undefined) throw new KnotError("NOT_FOUND", `No user tool with id ${id}.`);
        const current = Number(locked.version);
        if (expectedVersion !== undefined && expectedVersion !== current) {
          throw new KnotError(
            "CONFLICT",
            `The tool "${String(locked.name)}" is at version ${current}, not ${expectedVersion}: it changed meanwhile. Reload it and save again.`,
          );
        }
        const version = current + 1;
        await tx.query(`UPDATE user_tools SET (${EDITABLE}, version, updated_at) = (${EDITABLE_PLACEHOLDERS}, ?, ?) WHERE id = ?`, [
          ...editableValues(tool),
          version,
          at,
          id,
        ]);
        await saveVersion(tx, id, version, savedBy, at, tool);
        return (await getTool(tx, id))!;
      });
    },

    getUserTool: (id) => getTool(client, id),

    async findUserToolByName(ownerId, name) {
      const [row] = (await client.query(`${SELECT_TOOLS} WHERE t.owner_id = ? AND t.name = ?`, [ownerId, name])).rows;
      return row ? toUserTool(row) : null;
    },

    async listUserToolsVisibleTo(userId, groups) {
      const own = await client.query(`${SELECT_STAMPS} WHERE t.owner_id = ? ORDER BY t.name`, [userId]);
      const shared = await client.query(sharedWith, [userId, groups.map((group) => `@${group}`)]);
      return summaries.of([...own.rows, ...shared.rows], async (ids) => (await client.query(`${SELECT_SUMMARIES} WHERE ${dialect.inList("t.id")}`, [ids])).rows);
    },

    async deleteUserTool(id) {
      // Its versions go with it (ON DELETE CASCADE); see the migrations for why.
      return (await client.query("DELETE FROM user_tools WHERE id = ?", [id])).rowCount > 0;
    },

    async listUserToolVersions(id) {
      const { rows } = await client.query("SELECT * FROM user_tool_versions WHERE tool_id = ? ORDER BY version DESC", [id]);
      return rows.map(toUserToolVersion);
    },

    async getUserToolVersion(id, version) {
      // Outside the INTEGER column's range there is no such version (PostgreSQL would refuse the parameter).
      if (!Number.isSafeInteger(version) || version < 1 || version > MAX_INT4) return null;
      const [row] = (await client.query("SELECT * FROM user_tool_versions WHERE tool_id = ? AND version = ?", [id, version])).rows;
      return row ? toUserToolVersion(row) : null;
    },
  };
}
