/**
 * Reading and pruning the audit log, on either backend. Appending stays with each backend (the
 * SQLite writer thread, PostgreSQL's `audit_append` function), as does the chain lock that
 * pruning shares with appends: pruning removes only a prefix of the chain, under that lock, so
 * what remains still verifies; the last pruned row's hash is kept as the anchor the next row links
 * to if none remain.
 */
import type { AuditQuery, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { toAuditEntry } from "./records.ts";
import type { SqlQueryable, SqlValue } from "./sql-client.ts";

type AuditQueries = Pick<Store, "queryAudit" | "iterateAudit" | "auditAnchor" | "pruneAudit">;

const DEFAULT_AUDIT_LIMIT = 100;
const MAX_AUDIT_LIMIT = 1000;
const PAGE_SIZE = 500;

/** `seq < before` as an integer bound both engines accept; null when no seq can match. */
function seqBound(before: number): number | null {
  if (Number.isNaN(before) || before === -Infinity) return null;
  return Math.min(Math.ceil(before), Number.MAX_SAFE_INTEGER);
}

function limitOf(query: AuditQuery): number {
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? DEFAULT_AUDIT_LIMIT), 1), MAX_AUDIT_LIMIT);
  return Number.isNaN(limit) ? DEFAULT_AUDIT_LIMIT : limit;
}

/**
 * @param lockChain takes the lock appends take (PostgreSQL's advisory lock) inside `tx`; on SQLite
 *   the write transaction itself excludes every other appender.
 */
export function createAuditQueries({ client }: StoreContext, lockChain: (tx: SqlQueryable) => Promise<void>): AuditQueries {
  return {
    async queryAudit(query) {
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
      if (query.before !== undefined) {
        const bound = seqBound(query.before);
        if (bound === null) return [];
        filter("seq < ?", bound);
      }
      const sql = `SELECT * FROM audit ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ?`;
      return (await client.query(sql, [...params, limitOf(query)])).rows.map(toAuditEntry);
    },

    async *iterateAudit() {
      // Paged by seq so no read (or pooled connection) stays open across the caller's awaits.
      let after = 0;
      for (;;) {
        const { rows } = await client.query("SELECT * FROM audit WHERE seq > ? ORDER BY seq LIMIT ?", [after, PAGE_SIZE]);
        for (const row of rows) yield toAuditEntry(row);
        if (rows.length < PAGE_SIZE) return;
        after = Number(rows.at(-1)!.seq);
      }
    },

    async auditAnchor() {
      const [row] = (await client.query("SELECT seq, hash FROM audit_anchor WHERE id = 1", [])).rows;
      return row ? { seq: Number(row.seq), hash: String(row.hash) } : null;
    },

    async pruneAudit(olderThan) {
      return client.transaction(async (tx) => {
        // The same lock as appends: the anchor and the rows deleted describe one moment of the chain.
        await lockChain(tx);
        // The prefix of the chain up to (not including) the first row that is not old enough.
        const [first] = (await tx.query("SELECT min(seq) AS seq FROM audit WHERE at >= ?", [olderThan])).rows;
        const bound = first?.seq === null || first?.seq === undefined ? Number.MAX_SAFE_INTEGER : Number(first.seq);
        const [lastPruned] = (await tx.query("SELECT seq, hash FROM audit WHERE seq < ? ORDER BY seq DESC LIMIT 1", [bound])).rows;
        if (lastPruned === undefined) return 0;
        await tx.query(
          "INSERT INTO audit_anchor (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
          [Number(lastPruned.seq), String(lastPruned.hash)],
        );
        return (await tx.query("DELETE FROM audit WHERE seq < ?", [bound])).rowCount;
      });
    },
  };
}
