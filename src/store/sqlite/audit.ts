/**
 * Appending to the audit log on SQLite: append-only and hash-chained (recipe in ../audit-hash.ts).
 * The previous hash is read and the new row written in one IMMEDIATE transaction, so appends from
 * any number of callers or processes form one chain. Synchronous, for the writer thread
 * (audit-writer-worker.ts); reading and pruning are shared (../sql/audit-queries.ts).
 */
import { auditRowHash, GENESIS_HASH } from "../audit-hash.ts";
import { AUDIT_VALUE_COUNT, auditColumnValues, storedAuditEntry, type StoredAuditEntry } from "../audit-row.ts";
import type { AuditEntry, AuditEntryInput, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { deepFreeze } from "../sql/records.ts";

type AuditMethods = Pick<Store, "appendAudit" | "appendAuditBatch">;

const VALUES = Array.from({ length: AUDIT_VALUE_COUNT }, () => "?").join(", ");

/** SQLite stores text as UTF-8, which cannot hold a lone surrogate: fix it before hashing, so the hash covers what is stored. */
const normalize = (entry: AuditEntryInput): StoredAuditEntry => storedAuditEntry(entry, (text) => text.toWellFormed());

export function createAuditMethods({ db }: StoreContext): AuditMethods {
  function appendInTransaction(stored: StoredAuditEntry): AuditEntry {
    const { entry } = stored;
    const previous =
      db.get("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1") ?? db.get("SELECT seq, hash FROM audit_anchor WHERE id = 1");
    const used = Number(db.get("SELECT seq FROM sqlite_sequence WHERE name = 'audit'")?.seq ?? 0);
    const seq = Math.max(used, Number(previous?.seq ?? 0)) + 1;
    const prevHash = previous === undefined ? GENESIS_HASH : String(previous.hash);
    const hash = auditRowHash(prevHash, { ...entry, seq });
    db.run(
      `INSERT INTO audit (seq, at, user_id, token_id, client, surface, tool, args, outcome, duration_ms, summary, request_id, client_request_id, prev_hash, hash)
       VALUES (?, ${VALUES}, ?, ?)`,
      seq,
      ...auditColumnValues(stored),
      prevHash,
      hash,
    );
    return deepFreeze({ ...entry, seq, prevHash, hash });
  }

  return {
    async appendAudit(input) {
      const stored = normalize(input);
      return db.appendOnlyTransaction(() => appendInTransaction(stored));
    },

    async appendAuditBatch(inputs) {
      const normalized = inputs.map(normalize);
      return db.appendOnlyTransaction(() => normalized.map(appendInTransaction));
    },
  };
}
