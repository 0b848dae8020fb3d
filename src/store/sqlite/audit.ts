/**
 * Appending to the audit log on SQLite: append-only and hash-chained (recipe in ../audit-hash.ts).
 * The previous hash is read and the new row written in one IMMEDIATE transaction, so appends from
 * any number of callers or processes form one chain. Synchronous, for the writer thread
 * (audit-writer-worker.ts); reading and pruning are shared (../sql/audit-queries.ts).
 */
import { KnotError } from "../../errors.ts";
import { auditRowHash, canonicalJson, GENESIS_HASH } from "../audit-hash.ts";
import type { AuditEntry, AuditEntryInput, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { deepFreeze } from "../sql/records.ts";

type AuditMethods = Pick<Store, "appendAudit" | "appendAuditBatch">;

/** SQLite stores text as UTF-8, which cannot hold a lone surrogate: fix it before hashing, so the hash covers what is stored. */
const wellFormed = <T extends string | null>(value: T): T => (value === null ? value : (value.toWellFormed() as T));

/** The entry exactly as it will read back from the database. */
function normalize(entry: AuditEntryInput): { entry: AuditEntryInput; argsJson: string } {
  if (!Number.isFinite(entry.durationMs)) {
    throw new KnotError("BAD_REQUEST", `An audit entry's durationMs must be a finite number, not ${entry.durationMs}.`);
  }
  const argsJson = canonicalJson(entry.args);
  return {
    argsJson,
    entry: {
      at: wellFormed(entry.at),
      userId: wellFormed(entry.userId),
      tokenId: wellFormed(entry.tokenId),
      client: wellFormed(entry.client),
      surface: entry.surface,
      tool: wellFormed(entry.tool),
      args: JSON.parse(argsJson),
      outcome: wellFormed(entry.outcome),
      durationMs: entry.durationMs,
      summary: wellFormed(entry.summary),
      requestId: wellFormed(entry.requestId),
      ...(entry.clientRequestId ? { clientRequestId: wellFormed(entry.clientRequestId) } : {}),
    },
  };
}

export function createAuditMethods({ db }: StoreContext): AuditMethods {
  function appendInTransaction(entry: AuditEntryInput, argsJson: string): AuditEntry {
    const previous =
      db.get("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1") ?? db.get("SELECT seq, hash FROM audit_anchor WHERE id = 1");
    const used = Number(db.get("SELECT seq FROM sqlite_sequence WHERE name = 'audit'")?.seq ?? 0);
    const seq = Math.max(used, Number(previous?.seq ?? 0)) + 1;
    const prevHash = previous === undefined ? GENESIS_HASH : String(previous.hash);
    const hash = auditRowHash(prevHash, { ...entry, seq });
    db.run(
      `INSERT INTO audit (seq, at, user_id, token_id, client, surface, tool, args, outcome, duration_ms, summary, request_id, client_request_id, prev_hash, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      seq,
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
      prevHash,
      hash,
    );
    return deepFreeze({ ...entry, seq, prevHash, hash });
  }

  return {
    async appendAudit(input) {
      const { entry, argsJson } = normalize(input);
      return db.transaction(() => appendInTransaction(entry, argsJson));
    },

    async appendAuditBatch(inputs) {
      const normalized = inputs.map(normalize);
      return db.transaction(() => normalized.map(({ entry, argsJson }) => appendInTransaction(entry, argsJson)));
    },
  };
}
