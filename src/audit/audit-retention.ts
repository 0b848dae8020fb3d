/**
 * Audit retention (config `audit.retention_days`; 0 keeps everything): prunes the oldest rows on
 * start and then hourly. The store prunes only a prefix of the chain, so what remains verifies.
 */
import type { Logger } from "../log.ts";
import { startRetention, type Retention } from "../retention.ts";
import type { Store } from "../store/store.ts";

export function startAuditRetention(store: Store, retentionDays: number, logger: Logger, now: () => number = Date.now): Retention {
  return startRetention({ what: "audit rows", retentionDays, prune: (olderThan) => store.pruneAudit(olderThan), logger, now });
}
