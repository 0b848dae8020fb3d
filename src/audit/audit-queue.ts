/**
 * Group commit for audit appends (issue 10 item 10, issue 13 "audit off the hot path").
 *
 * Threat: every call appended its row in its own synced transaction on the event loop, so a burst
 * of calls (or a refused 4,000-message batch) stalled the whole server for seconds, and at 16
 * clients the fsync per call was the ceiling. Guarantee: rows wait in a queue and are written in
 * batches, one transaction (one fsync) per batch, at most MAX_BATCH rows each, so one batch holds
 * the event loop for a few ms at most; the loop gets a turn between batches. Durability is
 * unchanged: `append` resolves only after the transaction holding its row has committed, and
 * callers answer their client only after that, so an acknowledged call's row survives SIGKILL.
 * If a batch fails, its rows are retried one by one so one bad row cannot lose the others.
 */
import type { AuditEntry, AuditEntryInput, Store } from "../store/store.ts";

/** Rows per transaction: ~20 µs each to hash and insert, so a full batch is a few ms. */
export const MAX_BATCH = 64;

interface Waiting {
  readonly entry: AuditEntryInput;
  resolve(row: AuditEntry): void;
  reject(error: unknown): void;
}

export interface AuditQueue {
  /** Resolves once the row is committed; rejects when it could not be written. */
  append(entry: AuditEntryInput): Promise<AuditEntry>;
  /** Resolves when everything queued so far is committed (or failed). */
  flushed(): Promise<void>;
  /** Rows waiting, for metrics. */
  readonly depth: number;
}

export function createAuditQueue(store: Pick<Store, "appendAudit" | "appendAuditBatch">, maxBatch = MAX_BATCH): AuditQueue {
  const waiting: Waiting[] = [];
  let running: Promise<void> | null = null;

  async function writeBatch(batch: Waiting[]): Promise<void> {
    try {
      const rows = await store.appendAuditBatch(batch.map((w) => w.entry));
      batch.forEach((w, index) => w.resolve(rows[index]!));
    } catch {
      // One bad row must not cost the others theirs: retry each on its own.
      for (const w of batch) await store.appendAudit(w.entry).then(w.resolve, w.reject);
    }
  }

  async function drain(): Promise<void> {
    // Let the calls of this turn of the event loop join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (waiting.length > 0) {
      await writeBatch(waiting.splice(0, maxBatch));
      if (waiting.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    running = null;
  }

  return {
    append(entry) {
      return new Promise<AuditEntry>((resolve, reject) => {
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
