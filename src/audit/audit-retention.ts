/**
 * Audit retention (config `audit.retention_days`; 0 keeps everything): prunes the oldest rows on
 * start and then hourly. The store prunes only a prefix of the chain, so what remains verifies.
 */
import type { Logger } from "../log.ts";
import type { Store } from "../store/store.ts";

const DAY_MS = 86_400_000;
const EVERY_MS = 3_600_000;

export interface AuditRetention {
  /** Prunes now; answers how many rows were removed. */
  prune(): Promise<number>;
  stop(): void;
}

export function startAuditRetention(store: Store, retentionDays: number, logger: Logger, now: () => number = Date.now): AuditRetention {
  const prune = async () => {
    if (!(retentionDays > 0)) return 0;
    try {
      const removed = await store.pruneAudit(new Date(now() - retentionDays * DAY_MS).toISOString());
      if (removed > 0) logger.info("audit rows pruned", { removed, retentionDays });
      return removed;
    } catch (error) {
      logger.error("audit pruning failed", { error });
      return 0;
    }
  };
  const timer = retentionDays > 0 ? setInterval(() => void prune(), EVERY_MS) : null;
  timer?.unref();
  if (retentionDays > 0) setImmediate(() => void prune()).unref();
  return { prune, stop: () => { if (timer) clearInterval(timer); } };
}
