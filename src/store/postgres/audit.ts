/**
 * Appending to the audit log on PostgreSQL: append-only and hash-chained (recipe in
 * ../audit-hash.ts), shared by every instance on the database (reading and pruning are shared with
 * SQLite: ../sql/audit-queries.ts). An append is one call of the `audit_append` function (migrations.ts):
 * it takes a transaction-level advisory lock before it reads the previous hash, so appends from
 * any number of connections and instances form one chain (the next appender waits until this one
 * commits, then reads its row), and the lock is held for microseconds rather than round trips.
 * Pruning takes the same lock and removes only a prefix of the chain; the last pruned row's hash
 * is kept as the anchor the next row links to if none remain.
 */
import { auditColumnValues, storedAuditEntry, type StoredAuditEntry } from "../audit-row.ts";
import type { AuditEntry, AuditEntryInput, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { hashedAroundSeq } from "./audit-hash-parts.ts";
import { deepFreeze } from "../../deep-freeze.ts";
import { AUDIT_LOCK_CLASS } from "./locks.ts";
import type { PgQueryable } from "./pg-driver.ts";

type AuditMethods = Pick<Store, "appendAudit" | "appendAuditBatch">;

/**
 * Text as PostgreSQL will store it: a lone surrogate becomes U+FFFD (UTF-8 cannot hold it) and
 * so does U+0000 (PostgreSQL text cannot), so the hash covers what is stored and the row is
 * never refused. (`args` keeps both, escaped, inside its JSON text.)
 */
const normalize = (entry: AuditEntryInput): StoredAuditEntry =>
  storedAuditEntry(entry, (text) => text.toWellFormed().replaceAll("\u0000", "\uFFFD"));

async function appendWith(db: PgQueryable, stored: StoredAuditEntry): Promise<AuditEntry> {
  const { before, after } = hashedAroundSeq(stored.entry);
  const [row] = (
    await db.query("SELECT seq, prev_hash, hash FROM audit_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)", [
      AUDIT_LOCK_CLASS,
      before,
      after,
      ...auditColumnValues(stored),
    ])
  ).rows;
  return deepFreeze<AuditEntry>({ ...stored.entry, seq: Number(row!.seq), prevHash: String(row!.prev_hash), hash: String(row!.hash) });
}

export function createAuditMethods({ db }: StoreContext): AuditMethods {
  return {
    async appendAudit(input) {
      return appendWith(db, normalize(input));
    },

    async appendAuditBatch(inputs) {
      const normalized = inputs.map(normalize);
      // One transaction, so one commit for the batch; each append takes the chain lock (held to the end).
      return db.transaction(async (tx) => {
        const rows: AuditEntry[] = [];
        for (const item of normalized) rows.push(await appendWith(tx, item));
        return rows;
      });
    },
  };
}
