/**
 * Turns PostgreSQL rows into the store's records, equal to what the SQLite store returns:
 * BIGINT (which node-postgres hands over as a string) as a number, JSON columns already parsed
 * by node-postgres, and everything frozen so a caller cannot change a record another caller holds.
 */
import type { AuditEntry, TokenRecord, TokenScopes, UserRecord, UserToolInput, UserToolRecord, UserToolVersion } from "../store.ts";
import { deepFreeze } from "../sqlite/rows.ts";
import type { PgRow } from "./pg-driver.ts";

export { deepFreeze, normalizeToolInput } from "../sqlite/rows.ts";

const text = (row: PgRow, column: string): string => String(row[column]);
const textOrNull = (row: PgRow, column: string): string | null => (row[column] === null ? null : String(row[column]));
const number = (row: PgRow, column: string): number => Number(row[column]);
const flag = (row: PgRow, column: string): boolean => row[column] === true;

export function toUser(row: PgRow): UserRecord {
  return Object.freeze({
    id: text(row, "id"),
    name: text(row, "name"),
    isAdmin: flag(row, "is_admin"),
    createdAt: text(row, "created_at"),
  });
}

export function toToken(row: PgRow): TokenRecord {
  return Object.freeze({
    id: text(row, "id"),
    userId: text(row, "user_id"),
    name: text(row, "name"),
    scopes: deepFreeze((row.scopes ?? null) as TokenScopes | null),
    createdAt: text(row, "created_at"),
    expiresAt: textOrNull(row, "expires_at"),
    revokedAt: textOrNull(row, "revoked_at"),
    lastUsedAt: textOrNull(row, "last_used_at"),
    parentId: textOrNull(row, "parent_id"),
    connection: row.grant_id === null || row.grant_id === undefined
      ? null
      : Object.freeze({ clientId: text(row, "client_id"), clientName: text(row, "client_name"), grantId: text(row, "grant_id") }),
  });
}

export function toUserTool(row: PgRow): UserToolRecord {
  return deepFreeze({
    id: text(row, "id"),
    ownerId: text(row, "owner_id"),
    ownerName: text(row, "owner_name"),
    name: text(row, "name"),
    // A sink is stored as kind 'tool' with its events in sink_events (migration 7: see migrations.ts).
    kind: row.sink_events != null ? "sink" : text(row, "kind") as UserToolRecord["kind"],
    ...(row.sink_events != null ? { events: row.sink_events as string[] } : {}),
    description: text(row, "description"),
    language: text(row, "language") as UserToolRecord["language"],
    parameters: row.parameters as UserToolRecord["parameters"],
    code: text(row, "code"),
    sharing: text(row, "sharing") as UserToolRecord["sharing"],
    active: flag(row, "active"),
    readOnly: flag(row, "read_only"),
    destructive: flag(row, "destructive"),
    libPins: row.lib_pins as UserToolRecord["libPins"],
    version: number(row, "version"),
    createdAt: text(row, "created_at"),
    updatedAt: text(row, "updated_at"),
  });
}

export function toUserToolVersion(row: PgRow): UserToolVersion {
  return deepFreeze({
    toolId: text(row, "tool_id"),
    version: number(row, "version"),
    savedAt: text(row, "saved_at"),
    savedBy: text(row, "saved_by"),
    tool: row.snapshot as UserToolInput,
  });
}

export function toAuditEntry(row: PgRow): AuditEntry {
  return deepFreeze({
    seq: number(row, "seq"),
    at: text(row, "at"),
    userId: textOrNull(row, "user_id"),
    tokenId: textOrNull(row, "token_id"),
    client: textOrNull(row, "client"),
    surface: text(row, "surface") as AuditEntry["surface"],
    tool: text(row, "tool"),
    args: row.args,
    outcome: text(row, "outcome"),
    durationMs: number(row, "duration_ms"),
    summary: textOrNull(row, "summary"),
    requestId: textOrNull(row, "request_id"),
    ...(row.client_request_id === null || row.client_request_id === undefined ? {} : { clientRequestId: String(row.client_request_id) }),
    prevHash: text(row, "prev_hash"),
    hash: text(row, "hash"),
  });
}
