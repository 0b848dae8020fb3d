/**
 * The audit inbox of earlier versions (`audit_inbox`, migration 8): calls' rows were acknowledged
 * by a commit into it and moved into the chain a few ms later. Rows acknowledged now go to the
 * audit journal (audit-journal.ts); rows an earlier version left here (it was killed, or still runs
 * on the same file during an upgrade) are moved, in order and exactly once, whenever the journals are.
 */
import type { StoredAuditEntry } from "../audit-row.ts";
import { toAuditEntryInput } from "../sql/records.ts";
import type { AuditMethods } from "./audit.ts";
import type { Db, SqlRow } from "./sqlite-driver.ts";

const MOVE_BATCH = 128;
const OLDEST = "SELECT * FROM audit_inbox ORDER BY id LIMIT ?";

function storedRow(row: SqlRow): StoredAuditEntry {
  return { entry: toAuditEntryInput(row), argsJson: String(row.args) };
}

/** Moves every row waiting in the inbox into the chain (an empty inbox costs one read). Synchronous. */
export function moveInboxLeftovers(db: Db, audit: Pick<AuditMethods, "appendTaken">): void {
  if (db.get("SELECT 1 AS found FROM audit_inbox LIMIT 1") === undefined) return;
  for (let taken = MOVE_BATCH; taken === MOVE_BATCH;) {
    let lastId = 0;
    audit.appendTaken(() => {
      const rows = db.all(OLDEST, MOVE_BATCH);
      taken = rows.length;
      lastId = taken > 0 ? Number(rows[taken - 1]!.id) : 0;
      return rows.map(storedRow);
    }, () => {
      if (taken > 0) db.run("DELETE FROM audit_inbox WHERE id <= ?", lastId);
    });
  }
}
