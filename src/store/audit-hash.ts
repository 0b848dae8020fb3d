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
 *                                                      tool, args, outcome, durationMs, summary, requestId,
 *                                                      clientRequestId }))
 * where clientRequestId is left out (undefined) unless the client sent an `x-request-id`, and
 * canonicalJson sorts object keys (by UTF-16 code units), has no whitespace, writes strings
 * and numbers as JSON.stringify does, leaves out object members whose value is undefined, a
 * function or a symbol, and writes such values as null elsewhere. The first row ever has
 * prevHash = 64 zeros. After pruning, the first remaining row's prevHash is trusted as the anchor.
 */
import { createHash } from "node:crypto";
import type { AuditAnchor, AuditEntry, AuditEntryInput, Store } from "./store.ts";

export const GENESIS_HASH = "0".repeat(64);

export type AuditEntryWithSeq = AuditEntryInput & { readonly seq: number };

/** A piece of output still to write: literal text, or a value to serialise. */
type Pending = { readonly text: string } | { readonly value: unknown; readonly toJsonCalls: number };

/** How many `toJSON` results may themselves have a `toJSON` before the value is refused. */
const MAX_TO_JSON_CHAIN = 64;

/**
 * Deterministic JSON: object keys sorted, no whitespace. Iterative (an explicit stack, not
 * recursion), so a value nested any depth cannot overflow the call stack; the output is the same
 * as the recursive definition in the recipe above.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: Pending[] = [{ value, toJsonCalls: 0 }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if ("text" in next) {
      out.push(next.text);
      continue;
    }
    const current = next.value;
    if (current === null || typeof current !== "object") {
      out.push(isJsonValue(current) ? (JSON.stringify(current) as string) : "null");
      continue;
    }
    const withToJson = current as { toJSON?: () => unknown };
    if (typeof withToJson.toJSON === "function") {
      if (next.toJsonCalls >= MAX_TO_JSON_CHAIN) throw new TypeError("canonicalJson: toJSON results nest too deep");
      stack.push({ value: withToJson.toJSON(), toJsonCalls: next.toJsonCalls + 1 });
      continue;
    }
    // Pushed in reverse: the stack pops the opening bracket first.
    if (Array.isArray(current)) {
      stack.push({ text: "]" });
      for (let index = current.length - 1; index >= 0; index -= 1) {
        stack.push({ value: current[index], toJsonCalls: 0 });
        if (index > 0) stack.push({ text: "," });
      }
      stack.push({ text: "[" });
      continue;
    }
    const record = current as Record<string, unknown>;
    const keys = Object.keys(record).sort().filter((key) => isJsonValue(record[key]));
    stack.push({ text: "}" });
    for (let index = keys.length - 1; index >= 0; index -= 1) {
      const key = keys[index]!;
      stack.push({ value: record[key], toJsonCalls: 0 });
      stack.push({ text: `${index > 0 ? "," : ""}${JSON.stringify(key)}:` });
    }
    stack.push({ text: "{" });
  }
  return out.join("");
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
    // Absent (not null) when the client sent no id: canonical JSON then leaves it out, so rows
    // from before this field existed hash exactly as they did.
    clientRequestId: entry.clientRequestId ?? undefined,
  };
}

/** The hash of one audit row given the previous row's hash. */
export function auditRowHash(prevHash: string, entry: AuditEntryWithSeq): string {
  return createHash("sha256")
    .update(`${prevHash}\n${canonicalJson(hashedFields(entry))}`)
    .digest("hex");
}

/**
 * `auditRowHash` for an entry whose args are already in canonical JSON (`argsJson`, equal to
 * canonicalJson(entry.args)): "args" sorts first among the hashed keys, so the canonical text is
 * `{"args":<argsJson>,` followed by the other fields, and the args need not be serialised twice.
 */
export function auditRowHashWithArgs(prevHash: string, entry: AuditEntryWithSeq, argsJson: string): string {
  const rest = canonicalJson({ ...hashedFields(entry), args: undefined }); // "{" + at least `at`
  return createHash("sha256")
    .update(`${prevHash}\n{"args":${argsJson},${rest.slice(1)}`)
    .digest("hex");
}

export type ChainVerdict = { ok: true; rows: number } | { ok: false; seq: number; reason: string };

/**
 * Checks rows given in seq order. The first row's prevHash is trusted, so any run of rows can be
 * checked; `verifyStoredAudit` checks a store's whole chain, its start included.
 * @example
 *   const verdict = await verifyAuditChain(rows);
 *   if (!verdict.ok) console.error(`audit row ${verdict.seq}: ${verdict.reason}`);
 */
export function verifyAuditChain(rows: AsyncIterable<AuditEntry>): Promise<ChainVerdict> {
  return verifyRows(rows, null);
}

/**
 * A store's whole chain: it starts at the genesis hash, or where the last prune left it (the
 * anchor), so rows removed from its start without a prune are named too. A prune that commits while
 * the rows are read moves the start; the anchor is read again before a broken link is reported.
 */
export function verifyStoredAudit(store: Pick<Store, "iterateAudit" | "auditAnchor">, rows: AsyncIterable<AuditEntry> = store.iterateAudit()): Promise<ChainVerdict> {
  return verifyRows(rows, store);
}

async function verifyRows(rows: AsyncIterable<AuditEntry>, store: Pick<Store, "iterateAudit" | "auditAnchor"> | null): Promise<ChainVerdict> {
  let previous: AuditEntry | undefined;
  let count = 0;
  /** Whether `row` is the first row after the current anchor (a prune may have moved it meanwhile). */
  const startsAtAnchor = async (row: AuditEntry): Promise<boolean> => {
    const anchor = await store!.auditAnchor();
    return anchor === null ? row.prevHash === GENESIS_HASH && row.seq === 1 : row.prevHash === anchor.hash && row.seq === anchor.seq + 1;
  };
  /** A link broken by a prune during the read: the chain now starts at `row`, no earlier row is left. */
  const prunedMeanwhile = async (row: AuditEntry): Promise<boolean> => {
    if (!(await startsAtAnchor(row))) return false;
    for await (const first of store!.iterateAudit()) return first.seq === row.seq;
    return false;
  };
  for await (const row of rows) {
    if (previous === undefined) {
      if (store && !(await startsAtAnchor(row))) {
        return { ok: false, seq: row.seq, reason: "the chain does not start at its genesis or where the last prune left it (rows were removed from its start)" };
      }
    } else {
      if (!(row.seq > previous.seq)) {
        return { ok: false, seq: row.seq, reason: `seq ${row.seq} does not follow seq ${previous.seq}` };
      }
      if (row.prevHash !== previous.hash && !(store && (await prunedMeanwhile(row)))) {
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
