/**
 * Turns rows of either backend into the store's records: flags as booleans (SQLite's 0/1,
 * PostgreSQL's booleans), BIGINTs (strings from node-postgres) as numbers, JSON columns (text from
 * both drivers) parsed, and everything frozen so a caller cannot change a record another caller
 * also holds.
 */
import type {
  AuditEntry,
  AuditEntryInput,
  DeliveryRecord,
  DeliveryStatus,
  TokenRecord,
  TokenScopes,
  UserRecord,
  UserToolInput,
  UserToolRecord,
  UserToolSummary,
  UserToolVersion,
} from "../store.ts";
import { deepFreeze } from "../../deep-freeze.ts";
import type { SqlRow } from "./sql-client.ts";

const text = (row: SqlRow, column: string): string => String(row[column]);
const textOrNull = (row: SqlRow, column: string): string | null => (row[column] === null || row[column] === undefined ? null : String(row[column]));
const number = (row: SqlRow, column: string): number => Number(row[column]);
const flag = (row: SqlRow, column: string): boolean => row[column] === true || row[column] === 1;
export const json = (row: SqlRow, column: string): unknown => (row[column] === null ? null : JSON.parse(text(row, column)));

export function toUser(row: SqlRow): UserRecord {
  return Object.freeze({
    id: text(row, "id"),
    name: text(row, "name"),
    isAdmin: flag(row, "is_admin"),
    createdAt: text(row, "created_at"),
  });
}

export function toToken(row: SqlRow): TokenRecord {
  return Object.freeze({
    id: text(row, "id"),
    userId: text(row, "user_id"),
    name: text(row, "name"),
    scopes: deepFreeze(json(row, "scopes") as TokenScopes | null),
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

/** The tool as saved in a version snapshot (optional flags made explicit). */
export function normalizeToolInput(input: UserToolInput): UserToolInput {
  return {
    name: input.name,
    kind: input.kind,
    description: input.description,
    language: input.language,
    parameters: input.parameters,
    code: input.code,
    sharing: input.sharing,
    active: input.active,
    readOnly: input.readOnly ?? false,
    destructive: input.destructive ?? false,
    ...(input.kind === "sink" ? { events: [...(input.events ?? [])] } : {}),
    libPins: input.libPins ?? [],
  };
}

export function toUserTool(row: SqlRow): UserToolRecord {
  return deepFreeze({ ...summaryFields(row), code: text(row, "code") });
}

/** A listed tool (the row has no code column). */
export function toUserToolSummary(row: SqlRow): UserToolSummary {
  return deepFreeze(summaryFields(row));
}

function summaryFields(row: SqlRow): UserToolSummary {
  return {
    id: text(row, "id"),
    ownerId: text(row, "owner_id"),
    ownerName: text(row, "owner_name"),
    name: text(row, "name"),
    // A sink is stored as kind 'tool' with its events in sink_events (migration 7: see the migrations).
    kind: row.sink_events != null ? "sink" : text(row, "kind") as UserToolRecord["kind"],
    ...(row.sink_events != null ? { events: json(row, "sink_events") as string[] } : {}),
    description: text(row, "description"),
    language: text(row, "language") as UserToolRecord["language"],
    parameters: json(row, "parameters") as UserToolRecord["parameters"],
    sharing: text(row, "sharing") as UserToolRecord["sharing"],
    active: flag(row, "active"),
    readOnly: flag(row, "read_only"),
    destructive: flag(row, "destructive"),
    libPins: json(row, "lib_pins") as UserToolRecord["libPins"],
    version: number(row, "version"),
    createdAt: text(row, "created_at"),
    updatedAt: text(row, "updated_at"),
  };
}

export function toUserToolVersion(row: SqlRow): UserToolVersion {
  return deepFreeze({
    toolId: text(row, "tool_id"),
    version: number(row, "version"),
    savedAt: text(row, "saved_at"),
    savedBy: text(row, "saved_by"),
    tool: json(row, "snapshot") as UserToolInput,
  });
}

export function toDelivery(row: SqlRow): DeliveryRecord {
  return deepFreeze({
    id: number(row, "id"), sinkId: text(row, "sink_id"), eventId: text(row, "event_id"), type: text(row, "type"),
    status: text(row, "status") as DeliveryStatus, attempts: number(row, "attempts"),
    lastError: textOrNull(row, "last_error"), nextAttemptAt: text(row, "next_attempt_at"),
  });
}

export function toAuditEntry(row: SqlRow): AuditEntry {
  return deepFreeze({ seq: number(row, "seq"), ...toAuditEntryInput(row), prevHash: text(row, "prev_hash"), hash: text(row, "hash") });
}

/** The row's own fields, without its place in the chain (an audit row, or one waiting in SQLite's inbox). */
export function toAuditEntryInput(row: SqlRow): AuditEntryInput {
  return {
    at: text(row, "at"),
    userId: textOrNull(row, "user_id"),
    tokenId: textOrNull(row, "token_id"),
    client: textOrNull(row, "client"),
    surface: text(row, "surface") as AuditEntry["surface"],
    tool: text(row, "tool"),
    args: json(row, "args"),
    outcome: text(row, "outcome"),
    durationMs: number(row, "duration_ms"),
    summary: textOrNull(row, "summary"),
    requestId: textOrNull(row, "request_id"),
    ...(row.client_request_id === null || row.client_request_id === undefined ? {} : { clientRequestId: String(row.client_request_id) }),
  };
}
