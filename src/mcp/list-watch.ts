/**
 * Tool-list changes made by another process on the same SQLite file reach a stdio client: the
 * HTTP server beside a `knot-tools mcp` process saves, deletes or shares a tool, or changes a
 * grant. PostgreSQL has LISTEN/NOTIFY for that (change-bus.ts); SQLite has nothing to listen to,
 * so each stdio connection polls the store's change mark (one tiny statement, see
 * Store.changeMark) and, only when it moved, compares the user's visible tool list with the last
 * one it saw. A difference is told like a local change; a move that changed nothing this user
 * sees (another user's tool, an audit row) tells nothing.
 */
import type { Logger } from "../log.ts";

/** Fast enough for a person to see the change; the poll costs microseconds. */
export const LIST_POLL_MS = 500;

export interface ListWatchOptions {
  readonly changeMark: () => string;
  /** What the client would list now, as comparable text. */
  readonly fingerprint: () => Promise<string>;
  readonly changed: () => void;
  readonly logger: Logger;
  readonly intervalMs?: number;
}

export interface ListWatch {
  /**
   * Compares the list now, whether or not the mark moved (a change made in this process, which
   * may not be a store write: plugins reloaded), and tells a difference once. The periodic poll
   * then finds nothing new, so a local change is not told twice.
   */
  check(): Promise<void>;
  stop(): void;
}

export async function watchToolList(options: ListWatchOptions): Promise<ListWatch> {
  let mark = options.changeMark();
  let seen = await options.fingerprint();
  // One comparison at a time, in order: a poll and a check never both tell the same change.
  let last: Promise<void> = Promise.resolve();
  let polling = false;
  const compare = (always: boolean) => (last = last.then(() => compareNow(always)).catch((error: unknown) => {
    options.logger.warn("could not check the tool list for changes", { error: String(error) });
  }));
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    void compare(false).finally(() => (polling = false));
  }, options.intervalMs ?? LIST_POLL_MS);
  timer.unref();

  async function compareNow(always: boolean): Promise<void> {
    const now = options.changeMark();
    if (!always && now === mark) return;
    const print = await options.fingerprint();
    // Only once the list was read: a failed read (the store busy) is retried at the next poll.
    mark = now;
    if (print === seen) return;
    seen = print;
    options.changed();
  }

  return { check: () => compare(true), stop: () => clearInterval(timer) };
}
