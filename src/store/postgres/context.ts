import type { PgDb } from "./pg-driver.ts";

/** What the PostgreSQL audit append (audit.ts) is built from. */
export interface StoreContext {
  readonly db: PgDb;
  /** The current time as an ISO 8601 string (injectable so tests can control it). */
  readonly now: () => string;
}
