/**
 * The sink outbox: events and one delivery row per subscribed sink, written together. A claim
 * takes each sink's oldest open delivery and writes a lease in the same transaction. PostgreSQL,
 * shared by several instances, claims `FOR UPDATE SKIP LOCKED`: an instance never waits for
 * another's claim and never takes a delivery another holds, so each delivery runs once across
 * instances (at least once if an instance dies mid-run: its lease then expires). One instance
 * owns a SQLite file, and its write transaction (BEGIN IMMEDIATE) serialises claimers.
 */
import type { ClaimedDelivery, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { deepFreeze } from "../../deep-freeze.ts";
import { json, toDelivery, toUserToolSummary } from "./records.ts";
import { SELECT_SUMMARIES } from "./user-tools.ts";
import type { SqlValue } from "./sql-client.ts";

type EventMethods = Pick<Store, "appendEvent" | "listSinks" | "claimDeliveries" | "settleDelivery" | "renewDelivery" | "listDeliveries" | "pruneOutbox">;

export function createEventMethods({ client, now }: StoreContext): EventMethods {
  const claimable = `SELECT d.*, e.id AS event_id, e.type, e.at, e.data, e.caused_by FROM sink_deliveries d JOIN events e ON e.seq = d.event_seq
    WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
      AND d.id = (SELECT min(x.id) FROM sink_deliveries x WHERE x.sink_id = d.sink_id AND x.status IN ('pending', 'failed'))
    ORDER BY d.id LIMIT ?${client.dialect.lockRows("FOR UPDATE OF d SKIP LOCKED")}`;

  return {
    async appendEvent(event, sinkIds) {
      await client.transaction(async (tx) => {
        const causedBy = event.causedBy !== undefined && event.causedBy.length > 0 ? JSON.stringify(event.causedBy) : null;
        const { rows } = await tx.query("INSERT INTO events (id, type, at, data, caused_by) VALUES (?, ?, ?, ?, ?) RETURNING seq", [event.id, event.type, event.at, JSON.stringify(event.data ?? null), causedBy]);
        const seq = Number(rows[0]!.seq);
        for (const sinkId of sinkIds) {
          await tx.query("INSERT INTO sink_deliveries (sink_id, event_seq, status, next_attempt_at, updated_at) VALUES (?, ?, 'pending', ?, ?)", [sinkId, seq, event.at, now()]);
        }
      });
    },
    async listSinks() {
      return (await client.query(`${SELECT_SUMMARIES} WHERE t.sink_events IS NOT NULL AND t.active ORDER BY t.created_at, t.id`)).rows.map(toUserToolSummary);
    },
    async claimDeliveries(at, leaseUntil, limit) {
      return client.transaction(async (tx) => {
        const { rows } = await tx.query(claimable, [at, at, limit]);
        for (const row of rows) await tx.query("UPDATE sink_deliveries SET lease_until = ? WHERE id = ?", [leaseUntil, Number(row.id)]);
        return rows.map((row) => {
          const causedBy = json(row, "caused_by") as string[] | null;
          const event = { id: String(row.event_id), type: String(row.type), at: String(row.at), data: json(row, "data"), ...(causedBy ? { causedBy } : {}) };
          return deepFreeze({ ...toDelivery(row), event, leaseUntil }) as ClaimedDelivery;
        });
      });
    },
    async settleDelivery(id, outcome, lease) {
      // What changes per outcome; every settlement ends the lease, and counts only under its own.
      const [set, values]: [string, SqlValue[]] = outcome.status === "delivered" ? ["status = 'delivered', attempts = attempts + 1, last_error = NULL", []]
        : outcome.status === "deferred" ? ["last_error = ?, next_attempt_at = ?", [outcome.error.slice(0, 2000), outcome.nextAttemptAt]]
        : ["status = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?", [outcome.status, outcome.error.slice(0, 2000), outcome.nextAttemptAt]];
      const { rowCount } = await client.query(
        `UPDATE sink_deliveries SET ${set}, lease_until = NULL, updated_at = ? WHERE id = ?${lease === undefined ? "" : " AND lease_until = ?"}`,
        [...values, now(), id, ...(lease === undefined ? [] : [lease])],
      );
      return rowCount > 0;
    },
    async renewDelivery(id, lease, next) {
      // Bookkeeping no cached read depends on: it does not move the change mark (every running
      // delivery renews every few seconds, and a moved mark empties the principal and list caches).
      const { rowCount } = await client.informationalWrite("UPDATE sink_deliveries SET lease_until = ? WHERE id = ? AND lease_until = ?", [next, id, lease]);
      return rowCount > 0;
    },
    async pruneOutbox(olderThan) {
      return client.transaction(async (tx) => {
        const deliveries = await tx.query("DELETE FROM sink_deliveries WHERE status IN ('delivered', 'dead') AND updated_at < ?", [olderThan]);
        const events = await tx.query("DELETE FROM events WHERE at < ? AND NOT EXISTS (SELECT 1 FROM sink_deliveries d WHERE d.event_seq = events.seq)", [olderThan]);
        return deliveries.rowCount + events.rowCount;
      });
    },
    async listDeliveries(sinkId, limit) {
      const { rows } = await client.query(
        "SELECT d.*, e.id AS event_id, e.type FROM sink_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.sink_id = ? ORDER BY d.id DESC LIMIT ?",
        [sinkId, limit],
      );
      return rows.map(toDelivery);
    },
  };
}
