import type { Db } from "./sqlite-driver.ts";

/** What the SQLite audit append (audit.ts, also run by the writer thread) is built from. */
export interface StoreContext {
  readonly db: Db;
  /** The current time as an ISO 8601 string (injectable so tests can control it). */
  readonly now: () => string;
}
