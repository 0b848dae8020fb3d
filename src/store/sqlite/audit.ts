/**
 * Appending to the audit log on SQLite: append-only and hash-chained (recipe in ../audit-hash.ts).
 * The previous hash is read and the new row written in one IMMEDIATE transaction, so appends from
 * any number of callers or processes form one chain. Synchronous, for the writer thread
 * (audit-writer-worker.ts); reading and pruning are shared (../sql/audit-queries.ts).
 *
 * The chain head (seq, hash) this connection last committed is kept in memory, so an append need
 * not read it back. It is used only while the connection's change mark, read inside the append's
 * own write transaction (so nothing can commit between the check and the insert), is what it was
 * right after that commit: a commit by any other connection or process (another server, the CLI,
 * the writer thread) moves `PRAGMA data_version`, and any write of this connection outside audit
 * appends (a prune) moves the write count — either way the head is read from the table again.
 * It is set only once the transaction holding its row has committed.
 */
import { auditRowHashWithArgs, GENESIS_HASH } from "../audit-hash.ts";
import { AUDIT_COLUMNS, AUDIT_VALUE_COUNT, auditColumnValues, storedAuditEntry, type StoredAuditEntry } from "../audit-row.ts";
import type { AuditEntry, AuditEntryInput, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { deepFreeze } from "../../deep-freeze.ts";

export interface AuditMethods extends Pick<Store, "appendAudit" | "appendAuditBatch"> {
  /**
   * Appends the rows `take` reads inside the append's own write transaction, then runs `after`
   * in that transaction too (the audit inbox reads its oldest rows and deletes them, so a row
   * moves into the chain exactly once, whichever process moves it). Synchronous.
   */
  appendTaken(take: () => readonly StoredAuditEntry[], after: () => void): AuditEntry[];
}

export const VALUES = Array.from({ length: AUDIT_VALUE_COUNT }, () => "?").join(", ");

/** SQLite stores text as UTF-8, which cannot hold a lone surrogate: fix it before hashing, so the hash covers what is stored. */
export const normalize = (entry: AuditEntryInput): StoredAuditEntry => storedAuditEntry(entry, (text) => text.toWellFormed());

interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export function createAuditMethods({ db }: StoreContext): AuditMethods {
  /** The head this connection committed last, and the change mark right after that commit. */
  let known: { head: ChainHead; mark: string } | null = null;

  function storedHead(): ChainHead {
    const previous =
      db.get("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1") ?? db.get("SELECT seq, hash FROM audit_anchor WHERE id = 1");
    const used = Number(db.get("SELECT seq FROM sqlite_sequence WHERE name = 'audit'")?.seq ?? 0);
    return { seq: Math.max(used, Number(previous?.seq ?? 0)), hash: previous === undefined ? GENESIS_HASH : String(previous.hash) };
  }

  function append(head: ChainHead, stored: StoredAuditEntry): AuditEntry {
    const { entry } = stored;
    const seq = head.seq + 1;
    const hash = auditRowHashWithArgs(head.hash, { ...entry, seq }, stored.argsJson);
    db.run(
      `INSERT INTO audit (seq, ${AUDIT_COLUMNS}, prev_hash, hash) VALUES (?, ${VALUES}, ?, ?)`,
      seq,
      ...auditColumnValues(stored),
      head.hash,
      hash,
    );
    return deepFreeze({ ...entry, seq, prevHash: head.hash, hash });
  }

  /** Appends the rows in one transaction of their own (or the caller's, if one is open: then nothing is remembered). */
  function appendAll(take: () => readonly StoredAuditEntry[], after?: () => void): AuditEntry[] {
    const own = !db.inTransaction();
    let committed: { head: ChainHead; mark: string } | null = null;
    const cached = known;
    known = null; // until this transaction has committed, the remembered head may be stale
    const appended = db.appendOnlyTransaction(() => {
      const mark = db.changeMark();
      let head = own && cached?.mark === mark ? cached.head : storedHead();
      const result = take().map((stored) => {
        const row = append(head, stored);
        head = { seq: row.seq, hash: row.hash };
        return row;
      });
      after?.();
      committed = { head, mark };
      return result;
    });
    if (own) known = committed;
    return appended;
  }

  return {
    async appendAudit(input) {
      const stored = normalize(input);
      return appendAll(() => [stored])[0]!;
    },

    async appendAuditBatch(inputs) {
      const stored = inputs.map(normalize);
      return appendAll(() => stored);
    },

    appendTaken: appendAll,
  };
}
