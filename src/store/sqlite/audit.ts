/**
 * The audit log: append-only and hash-chained (recipe in ../audit-hash.ts). The previous hash is
 * read and the new row written in one IMMEDIATE transaction, so appends from any number of callers
 * or processes form one chain. Pruning removes only a prefix of the chain, so what remains still
 * verifies; the last pruned row's hash is kept as the anchor the next row links to if none remain.
 */
import { KnotError } from "../../errors.ts";
import { auditRowHash, canonicalJson, GENESIS_HASH } from "../audit-hash.ts";
import type { AuditEntry, AuditEntryInput, AuditQuery, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { deepFreeze, toAuditEntry } from "./rows.ts";
import type { SqlValue } from "./sqlite-driver.ts";

type AuditMethods = Pick<Store, "appendAudit" | "appendAuditBatch" | "queryAudit" | "iterateAudit" | "pruneAudit">;

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 1000;
const PAGE_SIZE = 500;

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
      return db.appendOnlyTransaction(() => appendInTransaction(entry, argsJson));
    },

    async appendAuditBatch(inputs) {
      const normalized = inputs.map(normalize);
      return db.appendOnlyTransaction(() => normalized.map(({ entry, argsJson }) => appendInTransaction(entry, argsJson)));
    },

    async queryAudit(query: AuditQuery) {
      const where: string[] = [];
      const params: SqlValue[] = [];
      const filter = (clause: string, value: SqlValue | undefined) => {
        if (value === undefined) return;
        where.push(clause);
        params.push(value);
      };
      filter("user_id = ?", query.userId);
      filter("tool = ?", query.tool);
      filter("outcome = ?", query.outcome);
      filter("at >= ?", query.since);
      filter("at < ?", query.until);
      filter("seq < ?", query.before);
      const limit = Math.min(Math.max(Math.trunc(query.limit ?? DEFAULT_AUDIT_LIMIT), 1), MAX_AUDIT_LIMIT);
      const sql = `SELECT * FROM audit ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ?`;
      return db.all(sql, ...params, limit).map(toAuditEntry);
    },

    async *iterateAudit() {
      // Paged by seq so no read stays open across the caller's awaits.
      let after = 0;
      for (;;) {
        const page = db.all("SELECT * FROM audit WHERE seq > ? ORDER BY seq LIMIT ?", after, PAGE_SIZE);
        for (const row of page) yield toAuditEntry(row);
        if (page.length < PAGE_SIZE) return;
        after = Number(page.at(-1)!.seq);
      }
    },

    async pruneAudit(olderThan) {
      return db.transaction(() => {
        // The prefix of the chain up to (not including) the first row that is not old enough.
        const firstKept = db.get("SELECT min(seq) AS seq FROM audit WHERE at >= ?", olderThan)?.seq ?? null;
        const bound = firstKept === null ? Number.MAX_SAFE_INTEGER : Number(firstKept);
        const lastPruned = db.get("SELECT seq, hash FROM audit WHERE seq < ? ORDER BY seq DESC LIMIT 1", bound);
        if (lastPruned === undefined) return 0;
        db.run(
          "INSERT INTO audit_anchor (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
          Number(lastPruned.seq),
          String(lastPruned.hash),
        );
        return db.run("DELETE FROM audit WHERE seq < ?", bound).changes;
      });
    },
  };
}
