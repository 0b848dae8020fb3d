/**
 * The audit log: append-only and hash-chained (recipe in ../audit-hash.ts), shared by every
 * instance on the database. An append is one call of the `audit_append` function (migrations.ts):
 * it takes a transaction-level advisory lock before it reads the previous hash, so appends from
 * any number of connections and instances form one chain (the next appender waits until this one
 * commits, then reads its row), and the lock is held for microseconds rather than round trips.
 * Pruning takes the same lock and removes only a prefix of the chain; the last pruned row's hash
 * is kept as the anchor the next row links to if none remain.
 */
import { KnotError } from "../../errors.ts";
import { canonicalJson } from "../audit-hash.ts";
import { DEFAULT_AUDIT_LIMIT, MAX_AUDIT_LIMIT } from "../sqlite/audit.ts";
import type { AuditEntry, AuditEntryInput, AuditQuery, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { hashedAroundSeq } from "./audit-hash-parts.ts";
import { AUDIT_LOCK_CLASS, lockAuditChain } from "./locks.ts";
import type { PgQueryable, PgValue } from "./pg-driver.ts";
import { deepFreeze, toAuditEntry } from "./rows.ts";

type AuditMethods = Pick<Store, "appendAudit" | "appendAuditBatch" | "queryAudit" | "iterateAudit" | "pruneAudit">;

const PAGE_SIZE = 500;

/**
 * Text as PostgreSQL will store it: a lone surrogate becomes U+FFFD (UTF-8 cannot hold it) and
 * so does U+0000 (PostgreSQL text cannot), so the hash covers what is stored and the row is
 * never refused. (`args` keeps both, escaped, inside its JSON text.)
 */
const storable = <T extends string | null>(value: T): T =>
  (value === null ? value : value.toWellFormed().replaceAll("\u0000", "\uFFFD")) as T;

/** The entry exactly as it will read back from the database. */
function normalize(entry: AuditEntryInput): { entry: AuditEntryInput; argsJson: string } {
  if (!Number.isFinite(entry.durationMs)) {
    throw new KnotError("BAD_REQUEST", `An audit entry's durationMs must be a finite number, not ${entry.durationMs}.`);
  }
  const argsJson = canonicalJson(entry.args);
  return {
    argsJson,
    entry: {
      at: storable(entry.at),
      userId: storable(entry.userId),
      tokenId: storable(entry.tokenId),
      client: storable(entry.client),
      surface: entry.surface,
      tool: storable(entry.tool),
      args: JSON.parse(argsJson),
      outcome: storable(entry.outcome),
      durationMs: entry.durationMs,
      summary: storable(entry.summary),
      requestId: storable(entry.requestId),
      ...(entry.clientRequestId ? { clientRequestId: storable(entry.clientRequestId) } : {}),
    },
  };
}

async function appendWith(db: PgQueryable, { entry, argsJson }: { entry: AuditEntryInput; argsJson: string }): Promise<AuditEntry> {
  const { before, after } = hashedAroundSeq(entry);
  const [row] = (
    await db.query("SELECT seq, prev_hash, hash FROM audit_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)", [
      AUDIT_LOCK_CLASS,
      before,
      after,
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
    ])
  ).rows;
  return deepFreeze<AuditEntry>({ ...entry, seq: Number(row!.seq), prevHash: String(row!.prev_hash), hash: String(row!.hash) });
}

/** `seq < before` as an integer bound PostgreSQL accepts; null when no seq can match. */
function seqBound(before: number): number | null {
  if (Number.isNaN(before) || before === -Infinity) return null;
  return Math.min(Math.ceil(before), Number.MAX_SAFE_INTEGER);
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

    async queryAudit(query: AuditQuery) {
      const where: string[] = [];
      const params: PgValue[] = [];
      const filter = (column: string, operator: string, value: PgValue | undefined) => {
        if (value === undefined) return;
        params.push(value);
        where.push(`${column} ${operator} $${params.length}`);
      };
      filter("user_id", "=", query.userId);
      filter("tool", "=", query.tool);
      filter("outcome", "=", query.outcome);
      filter("at", ">=", query.since);
      filter("at", "<", query.until);
      if (query.before !== undefined) {
        const bound = seqBound(query.before);
        if (bound === null) return [];
        filter("seq", "<", bound);
      }
      const limit = Math.min(Math.max(Math.trunc(query.limit ?? DEFAULT_AUDIT_LIMIT), 1), MAX_AUDIT_LIMIT);
      params.push(Number.isNaN(limit) ? DEFAULT_AUDIT_LIMIT : limit);
      const sql = `SELECT * FROM audit ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT $${params.length}`;
      return (await db.query(sql, params)).rows.map(toAuditEntry);
    },

    async *iterateAudit() {
      // Paged by seq so no connection stays checked out across the caller's awaits.
      let after = 0;
      for (;;) {
        const { rows } = await db.query("SELECT * FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2", [after, PAGE_SIZE]);
        for (const row of rows) yield toAuditEntry(row);
        if (rows.length < PAGE_SIZE) return;
        after = Number(rows.at(-1)!.seq);
      }
    },

    async pruneAudit(olderThan) {
      return db.transaction(async (tx) => {
        // The same lock as appends: the anchor and the rows deleted describe one moment of the chain.
        await lockAuditChain(tx);
        // The prefix of the chain up to (not including) the first row that is not old enough.
        const [first] = (await tx.query("SELECT min(seq) AS seq FROM audit WHERE at >= $1", [olderThan])).rows;
        const bound = first?.seq === null || first?.seq === undefined ? Number.MAX_SAFE_INTEGER : Number(first.seq);
        const [lastPruned] = (await tx.query("SELECT seq, hash FROM audit WHERE seq < $1 ORDER BY seq DESC LIMIT 1", [bound])).rows;
        if (lastPruned === undefined) return 0;
        await tx.query(
          "INSERT INTO audit_anchor (id, seq, hash) VALUES (1, $1, $2) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
          [Number(lastPruned.seq), String(lastPruned.hash)],
        );
        return (await tx.query("DELETE FROM audit WHERE seq < $1", [bound])).rowCount;
      });
    },
  };
}
