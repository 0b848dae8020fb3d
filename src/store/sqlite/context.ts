import type { Db } from "./sqlite-driver.ts";

/** What each part of the SQLite store is built from. */
export interface StoreContext {
  readonly db: Db;
  /** The current time as an ISO 8601 string (injectable so tests can control it). */
  readonly now: () => string;
}
