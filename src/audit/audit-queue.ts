/**
 * Group commit for audit rows (issue 10 item 10, issue 13 "audit off the hot path").
 *
 * Threat: every call appended its row in its own synced transaction on the event loop, so a burst
 * of calls (or a refused 4,000-message batch) stalled the whole server for seconds, and at 16
 * clients the fsync per call was the ceiling. Guarantee: rows wait in a queue and are written in
 * batches, one transaction (one fsync) per batch, at most MAX_BATCH rows each, so one batch holds
 * the event loop for a few ms at most; the loop gets a turn between batches. A row that comes
 * alone is written at once; once rows come several to a turn of the event loop, each batch waits
 * for the turn's rows. Durability is
 * unchanged: `append` resolves only after the transaction holding its row has committed, and
 * callers answer their client only after that, so an acknowledged call's row survives SIGKILL.
 * If a batch fails, its rows are retried one by one so one bad row cannot lose the others.
 *
 * Two writers: the chain itself (`createAuditQueue`: each row resolves with its seq and hash),
 * or, where the store has one, its audit journal (`createAuditJournalQueue`, SQLite: one write of
 * the batch's lines; the rows join the chain on the writer thread, see store/sqlite/audit-journal.ts).
 */
import { PartialBatchError } from "../store/partial-batch.ts";
import type { AuditEntry, AuditEntryInput, Store } from "../store/store.ts";

/** Rows per transaction: ~20 µs each to hash and insert, so a full batch is a few ms. */
export const MAX_BATCH = 64;

interface Waiting<R> {
  readonly entry: AuditEntryInput;
  resolve(row: R): void;
  reject(error: unknown): void;
}

export interface AuditQueue<R = AuditEntry> {
  /** Resolves once the row is committed; rejects when it could not be written. */
  append(entry: AuditEntryInput): Promise<R>;
  /** Resolves when everything queued so far is committed (or failed). */
  flushed(): Promise<void>;
  /** Rows waiting, for metrics. */
  readonly depth: number;
}

/** Appends to the chain: each row resolves with its place in it. */
export function createAuditQueue(store: Pick<Store, "appendAudit" | "appendAuditBatch">, maxBatch = MAX_BATCH): AuditQueue {
  return createBatchQueue((entries) => store.appendAuditBatch(entries), (entry) => store.appendAudit(entry), maxBatch);
}

/** Writes to the store's audit journal: each row resolves once it is as durable as an append. */
export function createAuditJournalQueue(enqueue: NonNullable<Store["enqueueAudit"]>, maxBatch = MAX_BATCH): AuditQueue<void> {
  return createBatchQueue(async (entries) => {
    await enqueue(entries);
    return entries.map(() => undefined);
  }, (entry) => enqueue([entry]), maxBatch);
}

function createBatchQueue<R>(
  writeBatch: (entries: readonly AuditEntryInput[]) => Promise<readonly R[]>,
  writeOne: (entry: AuditEntryInput) => Promise<R>,
  maxBatch: number,
): AuditQueue<R> {
  const waiting: Waiting<R>[] = [];
  let running: Promise<void> | null = null;
  // Waiting a turn of the event loop for company costs a lone call ~20 µs. It is worth it only
  // under load: once two rows have come in one turn, drains wait for the turn; a drain that found
  // its row alone goes back to writing at once.
  let batching = false;
  let thisTurn = 0;
  const countTurn = (): void => {
    if (thisTurn++ === 0) setImmediate(() => (thisTurn = 0));
    if (thisTurn > 1) batching = true;
  };

  async function write(batch: Waiting<R>[]): Promise<void> {
    try {
      const rows = await writeBatch(batch.map((w) => w.entry));
      batch.forEach((w, index) => w.resolve(rows[index]!));
    } catch (error) {
      // Rows written before a failure part-way are durable; one bad row must not cost the others theirs: retry each on its own.
      const done = error instanceof PartialBatchError ? error.done : 0;
      for (const w of batch.slice(0, done)) w.resolve(undefined as R);
      for (const w of batch.slice(done)) await writeOne(w.entry).then(w.resolve, w.reject);
    }
  }

  async function drain(): Promise<void> {
    // Under load, the calls of this turn of the event loop join the first batch; else the rows of this task.
    await new Promise<void>((resolve) => (batching ? setImmediate(resolve) : queueMicrotask(resolve)));
    if (waiting.length === 1) batching = false;
    while (waiting.length > 0) {
      await write(waiting.splice(0, maxBatch));
      if (waiting.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    running = null;
  }

  return {
    append(entry) {
      return new Promise<R>((resolve, reject) => {
        countTurn();
        waiting.push({ entry, resolve, reject });
        running ??= drain();
      });
    },
    async flushed() {
      while (running) await running;
    },
    get depth() {
      return waiting.length;
    },
  };
}
