/**
 * The sink outbox on PostgreSQL, shared by several instances. A claim takes each sink's oldest
 * open delivery `FOR UPDATE SKIP LOCKED` and writes a lease in the same transaction: an instance
 * never waits for another's claim and never takes a delivery another holds, so each delivery runs
 * once across instances (at least once if an instance dies mid-run: its lease then expires).
 */
import type { ClaimedDelivery, DeliveryRecord, DeliveryStatus, Store } from "../store.ts";
import type { StoreContext } from "./context.ts";
import type { PgRow } from "./pg-driver.ts";
import { deepFreeze, toUserTool } from "./rows.ts";

type EventMethods = Pick<Store, "appendEvent" | "listSinks" | "claimDeliveries" | "settleDelivery" | "listDeliveries">;

export function createEventMethods({ db, now }: StoreContext): EventMethods {
  return {
    async appendEvent(event, sinkIds) {
      await db.transaction(async (tx) => {
        const { rows } = await tx.query("INSERT INTO events (id, type, at, data) VALUES ($1, $2, $3, $4) RETURNING seq", [event.id, event.type, event.at, JSON.stringify(event.data ?? null)]);
        const seq = rows[0]!.seq as string;
        for (const sinkId of sinkIds) {
          await tx.query("INSERT INTO sink_deliveries (sink_id, event_seq, status, next_attempt_at, updated_at) VALUES ($1, $2, 'pending', $3, $4)", [sinkId, seq, event.at, now()]);
        }
      });
    },
    async listSinks() {
      return (await db.query("SELECT * FROM user_tools WHERE sink_events IS NOT NULL AND active ORDER BY created_at, id")).rows.map(toUserTool);
    },
    async claimDeliveries(at, leaseUntil, limit) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query(
          `SELECT d.*, e.id AS event_id, e.type, e.at, e.data FROM sink_deliveries d JOIN events e ON e.seq = d.event_seq
            WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
              AND d.id = (SELECT min(x.id) FROM sink_deliveries x WHERE x.sink_id = d.sink_id AND x.status IN ('pending', 'failed'))
            ORDER BY d.id LIMIT $2
            FOR UPDATE OF d SKIP LOCKED`,
          [at, limit],
        );
        for (const row of rows) await tx.query("UPDATE sink_deliveries SET lease_until = $1 WHERE id = $2", [leaseUntil, row.id as string]);
        return rows.map((row) => deepFreeze({ ...toDelivery(row), event: { id: String(row.event_id), type: String(row.type), at: String(row.at), data: row.data } }) as ClaimedDelivery);
      });
    },
    async settleDelivery(id, outcome) {
      if (outcome.status === "delivered") {
        await db.query("UPDATE sink_deliveries SET status = 'delivered', attempts = attempts + 1, last_error = NULL, lease_until = NULL, updated_at = $1 WHERE id = $2", [now(), id]);
      } else {
        await db.query("UPDATE sink_deliveries SET status = $1, attempts = attempts + 1, last_error = $2, next_attempt_at = $3, lease_until = NULL, updated_at = $4 WHERE id = $5",
          [outcome.status, outcome.error.slice(0, 2000), outcome.nextAttemptAt, now(), id]);
      }
    },
    async listDeliveries(sinkId, limit) {
      const { rows } = await db.query(
        "SELECT d.*, e.id AS event_id, e.type FROM sink_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.sink_id = $1 ORDER BY d.id DESC LIMIT $2",
        [sinkId, limit],
      );
      return rows.map(toDelivery);
    },
  };
}

function toDelivery(row: PgRow): DeliveryRecord {
  return deepFreeze({
    id: Number(row.id), sinkId: String(row.sink_id), eventId: String(row.event_id), type: String(row.type),
    status: String(row.status) as DeliveryStatus, attempts: Number(row.attempts),
    lastError: row.last_error === null ? null : String(row.last_error), nextAttemptAt: String(row.next_attempt_at),
  });
}
