/**
 * Audit batches are committed by a worker thread with its own SQLite connection, so the commit's
 * fsync (measured 5–35 ms on a busy shared disk) never holds the server's event loop. The chain
 * stays one chain: the thread appends with the same BEGIN IMMEDIATE read-then-write as every
 * other connection (see audit.ts), and a batch's promise resolves only once it is committed.
 * An in-memory database cannot be shared with a thread; it is written in place.
 */
import { Worker } from "node:worker_threads";
import { KnotError } from "../../errors.ts";
import type { AuditEntry, AuditEntryInput } from "../store.ts";
import { deepFreeze } from "../../deep-freeze.ts";
import type { Durability } from "./sqlite-driver.ts";

export interface AuditWriterThread {
  appendBatch(entries: readonly AuditEntryInput[]): Promise<AuditEntry[]>;
  /** Moves an audit journal's whole lines into the chain (audit-journal-move.ts). */
  moveJournal(file: string): Promise<void>;
  /** Moves the rest of a journal nobody writes any more, then deletes it. */
  retireJournal(file: string): Promise<void>;
  /** Copies the WAL into the database file (PASSIVE: never waits for, nor blocks, other connections). */
  checkpoint(): Promise<void>;
  /** Waits for batches in flight, then stops the thread. */
  close(): Promise<void>;
}

interface Pending {
  resolve(rows: AuditEntry[]): void;
  reject(error: unknown): void;
}

export function createAuditWriterThread(location: string, durability: Durability): AuditWriterThread {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  /** The thread failed or stopped: what waits on it fails (only if it is still the current thread: an old one's exit must not fail its successor's work). */
  function fail(thread: Worker, error: unknown) {
    if (worker !== thread) return;
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
    worker = null;
  }

  function started(): Worker {
    if (worker) return worker;
    const thread = new Worker(new URL("./audit-writer-worker.ts", import.meta.url), { workerData: { location, durability } });
    thread.on("message", (message: { id: number; rows?: AuditEntry[]; error?: { code: string | null; message: string }; closed?: true }) => {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(new KnotError(message.error.code ?? "INTERNAL", message.error.message));
      else waiting.resolve((message.rows ?? []).map((row) => deepFreeze(row)));
      if (pending.size === 0) thread.unref(); // idle: do not keep the process alive
    });
    thread.on("error", (error) => fail(thread, error));
    thread.on("exit", () => fail(thread, new KnotError("INTERNAL", "the audit writer thread stopped")));
    worker = thread;
    return thread;
  }

  function send(message: Record<string, unknown>): Promise<AuditEntry[]> {
    const thread = started();
    const id = nextId++;
    return new Promise<AuditEntry[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      thread.ref();
      thread.postMessage({ ...message, id });
    });
  }

  return {
    appendBatch: (entries) => send({ entries }),
    moveJournal: async (file) => {
      await send({ moveJournal: file });
    },
    retireJournal: async (file) => {
      await send({ retireJournal: file });
    },
    checkpoint: async () => {
      await send({ checkpoint: true });
    },
    async close() {
      if (!worker) return;
      const thread = worker;
      await send({ close: true }).catch(() => {});
      worker = null;
      await thread.terminate();
    },
  };
}
