/**
 * User tools and libs. Every save is a new version, written in the same transaction as the tool
 * row, so the history is never behind the tool. Visibility decides who may even learn a tool
 * exists: others' tools are listed only when active and shared with everyone or with a group the
 * caller is in.
 */
import { KnotError } from "../../errors.ts";
import type { Store, UserToolInput, UserToolRecord } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { normalizeToolInput, toUserTool, toUserToolVersion } from "./rows.ts";
import { isForeignKeyViolation, isUniqueViolation, type SqlValue } from "./sqlite-driver.ts";

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

/** The values of the editable columns, in this order. */
const EDITABLE = "name, kind, description, language, parameters, code, sharing, active, read_only, destructive, sink_events, lib_pins";
const EDITABLE_PLACEHOLDERS = EDITABLE.split(",").map(() => "?").join(", ");
/** Tool rows with their owner's name (shared tools are called by `<owner>__<name>`). */
const SELECT_TOOLS = "SELECT t.*, u.name AS owner_name FROM user_tools t JOIN users u ON u.id = t.owner_id";

function editableValues(tool: UserToolInput): SqlValue[] {
  return [
    tool.name,
    tool.kind === "sink" ? "tool" : tool.kind,
    tool.description,
    tool.language,
    JSON.stringify(tool.parameters),
    tool.code,
    tool.sharing,
    tool.active ? 1 : 0,
    tool.readOnly ? 1 : 0,
    tool.destructive ? 1 : 0,
    tool.kind === "sink" ? JSON.stringify(tool.events ?? []) : null,
    JSON.stringify(tool.libPins ?? []),
  ];
}

export function createUserToolMethods({ db, now }: StoreContext): UserToolMethods {
  function getTool(id: string): UserToolRecord | null {
    const row = db.get(`${SELECT_TOOLS} WHERE t.id = ?`, id);
    return row ? toUserTool(row) : null;
  }

  function saveVersion(toolId: string, version: number, savedBy: string, savedAt: string, tool: UserToolInput): void {
    db.run(
      "INSERT INTO user_tool_versions (tool_id, version, saved_at, saved_by, snapshot) VALUES (?, ?, ?, ?, ?)",
      toolId,
      version,
      savedAt,
      savedBy,
      JSON.stringify(tool),
    );
  }

  /** Runs a write transaction, turning a name clash (or, on create, a missing owner) into a KnotError. */
  function writing<T>(toolName: string, work: () => T, ownerId?: string): T {
    try {
      return db.transaction(work);
    } catch (error) {
      if (isUniqueViolation(error)) throw new KnotError("CONFLICT", `The owner already has a tool named "${toolName}".`);
      if (ownerId !== undefined && isForeignKeyViolation(error)) throw new KnotError("NOT_FOUND", `No user with id ${ownerId}.`);
      throw error;
    }
  }

  return {
    async createUserTool(ownerId, input) {
      const tool = normalizeToolInput(input);
      const id = crypto.randomUUID();
      const at = now();
      return writing(tool.name, () => {
        db.run(
          `INSERT INTO user_tools (id, owner_id, ${EDITABLE}, version, created_at, updated_at)
           VALUES (?, ?, ${EDITABLE_PLACEHOLDERS}, 1, ?, ?)`,
          id,
          ownerId,
          ...editableValues(tool),
          at,
          at,
        );
        saveVersion(id, 1, ownerId, at, tool);
        return getTool(id)!;
      }, ownerId);
    },

    async updateUserTool(id, savedBy, input, expectedVersion) {
      const tool = normalizeToolInput(input);
      const at = now();
      return writing(tool.name, () => {
        const current = getTool(id);
        if (current === null) throw new KnotError("NOT_FOUND", `No user tool with id ${id}.`);
        if (expectedVersion !== undefined && expectedVersion !== current.version) {
          throw new KnotError(
            "CONFLICT",
            `The tool "${current.name}" is at version ${current.version}, not ${expectedVersion}: it changed meanwhile. Reload it and save again.`,
          );
        }
        const version = current.version + 1;
        db.run(
          `UPDATE user_tools SET (${EDITABLE}, version, updated_at) = (${EDITABLE_PLACEHOLDERS}, ?, ?) WHERE id = ?`,
          ...editableValues(tool),
          version,
          at,
          id,
        );
        saveVersion(id, version, savedBy, at, tool);
        return getTool(id)!;
      });
    },

    async getUserTool(id) {
      return getTool(id);
    },

    async findUserToolByName(ownerId, name) {
      const row = db.get(`${SELECT_TOOLS} WHERE t.owner_id = ? AND t.name = ?`, ownerId, name);
      return row ? toUserTool(row) : null;
    },

    async listUserToolsVisibleTo(userId, groups) {
      const own = db.all(`${SELECT_TOOLS} WHERE t.owner_id = ? ORDER BY t.name`, userId);
      const shared = db.all(
        `${SELECT_TOOLS}
          WHERE t.owner_id <> ?1 AND t.active = 1
            AND (t.sharing = 'everyone' OR t.sharing IN (SELECT '@' || value FROM json_each(?2)))
          ORDER BY t.name, u.name, t.created_at, t.rowid`,
        userId,
        JSON.stringify(groups),
      );
      return [...own, ...shared].map(toUserTool);
    },

    async deleteUserTool(id) {
      // Its versions go with it (ON DELETE CASCADE); see migrations.ts for why.
      return db.run("DELETE FROM user_tools WHERE id = ?", id).changes > 0;
    },

    async listUserToolVersions(id) {
      return db.all("SELECT * FROM user_tool_versions WHERE tool_id = ? ORDER BY version DESC", id).map(toUserToolVersion);
    },

    async getUserToolVersion(id, version) {
      const row = db.get("SELECT * FROM user_tool_versions WHERE tool_id = ? AND version = ?", id, version);
      return row ? toUserToolVersion(row) : null;
    },
  };
}
