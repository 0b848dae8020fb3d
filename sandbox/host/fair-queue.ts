/**
 * Why: first come, first served lets one user's backlog hold back everyone else's first run
 * (issue 10, root cause 9). Waiting runs are kept per user and served round-robin: the user
 * served last goes to the back of the line, so a newcomer's first run is next whenever a slot
 * frees up and the flooder's own in-flight cap is reached or their turn has passed.
 */
import type { RunTicket } from "./run-ticket.ts";

export interface FairQueue {
  readonly size: number;
  /** A new run: at the back of its user's line. */
  push(ticket: RunTicket): void;
  /** A run handed back (its worker was lost): at the front of its user's line. */
  unshift(ticket: RunTicket): void;
  remove(ticket: RunTicket): boolean;
  /** The next run, round-robin by user, among users `mayTake` allows; skips finished tickets. */
  next(mayTake: (userId: string) => boolean): RunTicket | undefined;
  /** Empties the queue and returns what was in it. */
  drain(): RunTicket[];
}

export function createFairQueue(): FairQueue {
  /** Insertion order is the round-robin order: a user just served is moved to the end. */
  const lines = new Map<string, RunTicket[]>();
  let size = 0;

  function lineOf(ticket: RunTicket): RunTicket[] {
    const userId = ticket.job.user.id;
    let line = lines.get(userId);
    if (line === undefined) {
      line = [];
      lines.set(userId, line);
    }
    return line;
  }

  return {
    get size() {
      return size;
    },
    push(ticket) {
      lineOf(ticket).push(ticket);
      size += 1;
    },
    unshift(ticket) {
      lineOf(ticket).unshift(ticket);
      size += 1;
    },
    remove(ticket) {
      const line = lines.get(ticket.job.user.id);
      const index = line?.indexOf(ticket) ?? -1;
      if (line === undefined || index < 0) return false;
      line.splice(index, 1);
      size -= 1;
      if (line.length === 0) lines.delete(ticket.job.user.id);
      return true;
    },
    next(mayTake) {
      for (const [userId, line] of lines) {
        if (!mayTake(userId)) continue;
        const ticket = line.shift() as RunTicket;
        size -= 1;
        lines.delete(userId);
        if (line.length > 0) lines.set(userId, line);
        if (ticket.done) return this.next(mayTake);
        return ticket;
      }
      return undefined;
    },
    drain() {
      const all = [...lines.values()].flat();
      lines.clear();
      size = 0;
      return all;
    },
  };
}
