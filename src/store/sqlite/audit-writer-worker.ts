/**
 * The SQLite audit writer thread (see audit-writer.ts): its own connection to the database file,
 * appending each batch it is sent in one transaction and answering the rows once committed, and
 * running the WAL checkpoints the server's own connection leaves to it (see sqlite-store.ts).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { AuditEntryInput } from "../store.ts";
import { createAuditMethods } from "./audit.ts";
import { openDatabase, type Durability } from "./sqlite-driver.ts";

const { location, durability } = workerData as { location: string; durability: Durability };
const db = openDatabase(location, durability);
const audit = createAuditMethods({ db, now: () => new Date().toISOString() });

parentPort!.on("message", (message: { id: number; entries?: AuditEntryInput[]; close?: true; checkpoint?: true }) => {
  if (message.checkpoint) {
    try {
      db.exec("PRAGMA wal_checkpoint(PASSIVE)");
      parentPort!.postMessage({ id: message.id, rows: [] });
    } catch (error) {
      parentPort!.postMessage({ id: message.id, error: { code: null, message: String((error as Error)?.message ?? error) } });
    }
    return;
  }
  if (message.close) {
    db.close();
    parentPort!.postMessage({ id: message.id, closed: true });
    return;
  }
  audit.appendAuditBatch(message.entries ?? []).then(
    (rows) => parentPort!.postMessage({ id: message.id, rows }),
    (error: unknown) => parentPort!.postMessage({ id: message.id, error: { code: (error as { code?: unknown }).code ?? null, message: String((error as Error)?.message ?? error) } }),
  );
});
