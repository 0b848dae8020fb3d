/**
 * The audit log's hash chain, as pure functions so that anyone holding an export can check it.
 *
 * Threat: someone with write access to the database edits, inserts or deletes audit rows to hide
 * what a caller did. Guarantee: each row's `hash` covers its own fields and the previous row's
 * hash, so changing or removing any row breaks the chain at that row or the next one. It does not
 * stop someone who rewrites every later row too, nor truncation at the end; for that, copy the
 * latest hash somewhere else from time to time.
 *
 * Recipe (stable; a change needs a new chain version):
 *   hash = sha256_hex(prevHash + "\n" + canonicalJson({ seq, at, userId, tokenId, client, surface,
 *                                                      tool, args, outcome, durationMs, summary, requestId }))
 * where canonicalJson sorts object keys (by UTF-16 code units), has no whitespace, writes strings
 * and numbers as JSON.stringify does, leaves out object members whose value is undefined, a
 * function or a symbol, and writes such values as null elsewhere. The first row ever has
 * prevHash = 64 zeros. After pruning, the first remaining row's prevHash is trusted as the anchor.
 */
import { createHash } from "node:crypto";
import type { AuditEntry, AuditEntryInput } from "./store.ts";

export const GENESIS_HASH = "0".repeat(64);

export type AuditEntryWithSeq = AuditEntryInput & { readonly seq: number };

/** Deterministic JSON: object keys sorted, no whitespace. */
export function canonicalJson(value: unknown): string {
  if (value !== null && typeof value === "object") {
    const withToJson = value as { toJSON?: () => unknown };
    if (typeof withToJson.toJSON === "function") return canonicalJson(withToJson.toJSON());
    if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(",")}]`;
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => isJsonValue(record[key]))
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(",")}}`;
  }
  return isJsonValue(value) ? (JSON.stringify(value) as string) : "null";
}

/** Whether JSON.stringify keeps the value (as a member of an object) rather than dropping it. */
function isJsonValue(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

/** The fields the hash covers, in the recipe's shape; extra properties (prevHash, hash) are ignored. */
function hashedFields(entry: AuditEntryWithSeq): Record<string, unknown> {
  return {
    seq: entry.seq,
    at: entry.at,
    userId: entry.userId,
    tokenId: entry.tokenId,
    client: entry.client,
    surface: entry.surface,
    tool: entry.tool,
    args: entry.args,
    outcome: entry.outcome,
    durationMs: entry.durationMs,
    summary: entry.summary,
    requestId: entry.requestId,
  };
}

/** The hash of one audit row given the previous row's hash. */
export function auditRowHash(prevHash: string, entry: AuditEntryWithSeq): string {
  return createHash("sha256")
    .update(`${prevHash}\n${canonicalJson(hashedFields(entry))}`)
    .digest("hex");
}

export type ChainVerdict = { ok: true; rows: number } | { ok: false; seq: number; reason: string };

/**
 * Checks rows given in seq order. The first row's prevHash is trusted as the anchor.
 * @example
 *   const verdict = await verifyAuditChain(store.iterateAudit());
 *   if (!verdict.ok) console.error(`audit row ${verdict.seq}: ${verdict.reason}`);
 */
export async function verifyAuditChain(rows: AsyncIterable<AuditEntry>): Promise<ChainVerdict> {
  let previous: AuditEntry | undefined;
  let count = 0;
  for await (const row of rows) {
    if (previous !== undefined) {
      if (!(row.seq > previous.seq)) {
        return { ok: false, seq: row.seq, reason: `seq ${row.seq} does not follow seq ${previous.seq}` };
      }
      if (row.prevHash !== previous.hash) {
        return { ok: false, seq: row.seq, reason: `prevHash does not match the hash of row ${previous.seq} (a row was changed, removed or inserted)` };
      }
    }
    if (auditRowHash(row.prevHash, row) !== row.hash) {
      return { ok: false, seq: row.seq, reason: "hash does not match the row's contents (the row was changed)" };
    }
    previous = row;
    count += 1;
  }
  return { ok: true, rows: count };
}
