/**
 * The SQLite audit writer thread (see audit-writer.ts): its own connection to the database file,
 * appending each batch it is sent in one transaction and answering the rows once committed,
 * moving audit journals into the chain (audit-journal.ts), and running the WAL checkpoints the
 * server's own connection leaves to it (see sqlite-store.ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { AuditEntryInput } from "../store.ts";
import { createAuditMethods } from "./audit.ts";
import { moveJournal, retireJournal } from "./audit-journal-move.ts";
import { openDatabase, type Durability } from "./sqlite-driver.ts";

const { location, durability } = workerData as { location: string; durability: Durability };
const db = openDatabase(location, durability);
const audit = createAuditMethods({ db, now: () => new Date().toISOString() });

const failure = (error: unknown) => ({ code: (error as { code?: unknown }).code ?? null, message: String((error as Error)?.message ?? error) });

/** Runs synchronous work of the thread's own and answers its end (or its error). */
function answer(id: number, work: () => void): void {
  try {
    work();
    parentPort!.postMessage({ id, rows: [] });
  } catch (error) {
    parentPort!.postMessage({ id, error: failure(error) });
  }
}

parentPort!.on("message", (message: { id: number; entries?: AuditEntryInput[]; close?: true; checkpoint?: true; moveJournal?: string; retireJournal?: string }) => {
  if (message.checkpoint) return answer(message.id, () => db.exec("PRAGMA wal_checkpoint(PASSIVE)"));
  if (message.moveJournal) return answer(message.id, () => moveJournal(db, audit, message.moveJournal!));
  if (message.retireJournal) {
    return answer(message.id, () => {
      if (!retireJournal(db, audit, message.retireJournal!)) throw new Error("the journal still holds rows after its move; it is kept");
    });
  }
  if (message.close) {
    db.close();
    parentPort!.postMessage({ id: message.id, closed: true });
    return;
  }
  audit.appendAuditBatch(message.entries ?? []).then(
    (rows) => parentPort!.postMessage({ id: message.id, rows }),
    (error: unknown) => parentPort!.postMessage({ id: message.id, error: failure(error) }),
  );
});
