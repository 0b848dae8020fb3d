/**
 * What both backends' audit appends share: the entry exactly as it will read back from the
 * database (text made storable before it is hashed, so the hash covers what is stored), and its
 * column values in the order of the audit table (`at` … `client_request_id`).
 */
import { KnotError } from "../errors.ts";
import { canonicalJson } from "./audit-hash.ts";
import type { AuditEntryInput } from "./store.ts";

export interface StoredAuditEntry {
  readonly entry: AuditEntryInput;
  readonly argsJson: string;
}

/** @param storable text as the backend will store it (each backend cannot hold some characters). */
export function storedAuditEntry(entry: AuditEntryInput, storable: (text: string) => string): StoredAuditEntry {
  if (!Number.isFinite(entry.durationMs)) {
    throw new KnotError("BAD_REQUEST", `An audit entry's durationMs must be a finite number, not ${entry.durationMs}.`);
  }
  const fix = <T extends string | null>(value: T): T => (value === null ? value : (storable(value) as T));
  const argsJson = canonicalJson(entry.args);
  return {
    argsJson,
    entry: {
      at: fix(entry.at),
      userId: fix(entry.userId),
      tokenId: fix(entry.tokenId),
      client: fix(entry.client),
      surface: entry.surface,
      tool: fix(entry.tool),
      args: JSON.parse(argsJson),
      outcome: fix(entry.outcome),
      durationMs: entry.durationMs,
      summary: fix(entry.summary),
      requestId: fix(entry.requestId),
      ...(entry.clientRequestId ? { clientRequestId: fix(entry.clientRequestId) } : {}),
    },
  };
}

/** The number of values `auditColumnValues` returns. */
export const AUDIT_VALUE_COUNT = 12;
/** The columns `auditColumnValues` fills, in its order (the audit table's and SQLite's audit inbox's). */
export const AUDIT_COLUMNS = "at, user_id, token_id, client, surface, tool, args, outcome, duration_ms, summary, request_id, client_request_id";

/** Values for the columns at, user_id, token_id, client, surface, tool, args, outcome, duration_ms, summary, request_id, client_request_id. */
export function auditColumnValues({ entry, argsJson }: StoredAuditEntry): (string | number | null)[] {
  return [
    entry.at,
    entry.userId,
    entry.tokenId,
    entry.client,
    entry.surface,
    entry.tool,
    argsJson,
    entry.outcome,
    entry.durationMs,
    entry.summary,
    entry.requestId,
    entry.clientRequestId ?? null,
  ];
}
