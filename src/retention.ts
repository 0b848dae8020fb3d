/**
 * Keeping rows for a number of days (0 keeps everything): prunes on start and then hourly, and
 * logs what it removed. Used for the audit log and the sinks' outbox; each store method decides
 * what "older than" removes (the audit log only a prefix of its chain, so what remains verifies).
 */
import type { Logger } from "./log.ts";

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

export interface Retention {
  /** Prunes now; answers how many rows were removed. */
  prune(): Promise<number>;
  stop(): void;
}

export interface RetentionOptions {
  /** What is pruned, for the log ("audit rows"). */
  readonly what: string;
  readonly retentionDays: number;
  /** Removes what is older than this ISO time; answers how many rows. */
  readonly prune: (olderThan: string) => Promise<number>;
  readonly logger: Logger;
  readonly now?: () => number;
}

export function startRetention(options: RetentionOptions): Retention {
  const { what, retentionDays, logger } = options;
  const now = options.now ?? Date.now;
  const prune = async () => {
    if (!(retentionDays > 0)) return 0;
    try {
      const removed = await options.prune(new Date(now() - retentionDays * DAY_MS).toISOString());
      if (removed > 0) logger.info(`${what} pruned`, { removed, retentionDays });
      return removed;
    } catch (error) {
      logger.error(`pruning ${what} failed`, { error });
      return 0;
    }
  };
  const timer = retentionDays > 0 ? setInterval(() => void prune(), EVERY_MS) : null;
  timer?.unref();
  if (retentionDays > 0) setImmediate(() => void prune()).unref();
  return { prune, stop: () => { if (timer) clearInterval(timer); } };
}
