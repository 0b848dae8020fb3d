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

export async function watchToolList(options: ListWatchOptions): Promise<{ stop(): void }> {
  let mark = options.changeMark();
  let seen = await options.fingerprint();
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void poll().catch((error: unknown) => options.logger.warn("could not check the tool list for changes", { error: String(error) }))
      .finally(() => (busy = false));
  }, options.intervalMs ?? LIST_POLL_MS);
  timer.unref();

  async function poll(): Promise<void> {
    const now = options.changeMark();
    if (now === mark) return;
    mark = now;
    const print = await options.fingerprint();
    if (print === seen) return;
    seen = print;
    options.changed();
  }

  return { stop: () => clearInterval(timer) };
}
