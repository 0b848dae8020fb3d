/**
 * The sink outbox on SQLite: events and one delivery row per subscribed sink, written together.
 * One instance owns a SQLite file, so a claim is a lease written in the same write transaction
 * that read it (BEGIN IMMEDIATE serialises claimers).
 */
import type { ClaimedDelivery, DeliveryRecord, DeliveryStatus, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import { deepFreeze, toUserTool } from "./rows.ts";
import type { SqlRow } from "./sqlite-driver.ts";

type EventMethods = Pick<Store, "appendEvent" | "listSinks" | "claimDeliveries" | "settleDelivery" | "listDeliveries">;

export function createEventMethods({ db, now }: StoreContext): EventMethods {
  return {
    async appendEvent(event, sinkIds) {
      db.transaction(() => {
        db.run("INSERT INTO events (id, type, at, data) VALUES (?, ?, ?, ?)", event.id, event.type, event.at, JSON.stringify(event.data ?? null));
        const seq = Number(db.get("SELECT seq FROM events WHERE id = ?", event.id)!.seq);
        for (const sinkId of sinkIds) {
          db.run("INSERT INTO sink_deliveries (sink_id, event_seq, status, next_attempt_at, updated_at) VALUES (?, ?, 'pending', ?, ?)", sinkId, seq, event.at, now());
        }
      });
    },
    async listSinks() {
      return db.all("SELECT * FROM user_tools WHERE sink_events IS NOT NULL AND active = 1 ORDER BY created_at, id").map(toUserTool);
    },
    async claimDeliveries(at, leaseUntil, limit) {
      return db.transaction(() => {
        const rows = db.all(
          `SELECT d.*, e.id AS event_id, e.type, e.at, e.data FROM sink_deliveries d JOIN events e ON e.seq = d.event_seq
            WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= ?1 AND (d.lease_until IS NULL OR d.lease_until <= ?1)
              AND d.id = (SELECT min(x.id) FROM sink_deliveries x WHERE x.sink_id = d.sink_id AND x.status IN ('pending', 'failed'))
            ORDER BY d.id LIMIT ?2`,
          at, limit,
        );
        for (const row of rows) db.run("UPDATE sink_deliveries SET lease_until = ? WHERE id = ?", leaseUntil, Number(row.id));
        return rows.map((row) => deepFreeze({ ...toDelivery(row), event: { id: String(row.event_id), type: String(row.type), at: String(row.at), data: JSON.parse(String(row.data)) } }) as ClaimedDelivery);
      });
    },
    async settleDelivery(id, outcome) {
      if (outcome.status === "delivered") {
        db.run("UPDATE sink_deliveries SET status = 'delivered', attempts = attempts + 1, last_error = NULL, lease_until = NULL, updated_at = ? WHERE id = ?", now(), id);
      } else {
        db.run("UPDATE sink_deliveries SET status = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?, lease_until = NULL, updated_at = ? WHERE id = ?",
          outcome.status, outcome.error.slice(0, 2000), outcome.nextAttemptAt, now(), id);
      }
    },
    async listDeliveries(sinkId, limit) {
      return db.all(
        `SELECT d.*, e.id AS event_id, e.type FROM sink_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.sink_id = ? ORDER BY d.id DESC LIMIT ?`,
        sinkId, limit,
      ).map(toDelivery);
    },
  };
}

function toDelivery(row: SqlRow): DeliveryRecord {
  return deepFreeze({
    id: Number(row.id), sinkId: String(row.sink_id), eventId: String(row.event_id), type: String(row.type),
    status: String(row.status) as DeliveryStatus, attempts: Number(row.attempts),
    lastError: row.last_error === null ? null : String(row.last_error), nextAttemptAt: String(row.next_attempt_at),
  });
}
