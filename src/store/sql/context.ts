import type { SqlClient } from "./sql-client.ts";

/** What each part of the store is built from, on either backend. */
export interface StoreContext {
  readonly client: SqlClient;
  /** The current time as an ISO 8601 string (injectable so tests can control it). */
  readonly now: () => string;
}
