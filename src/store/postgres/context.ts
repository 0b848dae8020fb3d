import type { PgDb } from "./pg-driver.ts";

/** What each part of the PostgreSQL store is built from. */
export interface StoreContext {
  readonly db: PgDb;
  /** The current time as an ISO 8601 string (injectable so tests can control it). */
  readonly now: () => string;
}
