/**
 * The one seam between the store's queries (written once, in this folder) and a database driver.
 * Each backend provides a SqlClient (sqlite/sqlite-client.ts, postgres/pg-client.ts); everything
 * else about users, grants, tokens, tools, settings, OAuth rows, the outbox and audit reads is
 * shared.
 *
 * The SQL written against it:
 * - uses `?` placeholders (PostgreSQL's client numbers them `$1…`); a value used twice is passed twice;
 * - binds booleans as booleans and lists of strings as arrays (only through `dialect.inList`);
 * - reads JSON columns as text (both drivers hand them over unparsed) and flags as `true`/`1`;
 * - is portable SQL both engines accept (`ON CONFLICT … DO NOTHING|UPDATE`, `RETURNING`, row-value
 *   `SET (a, b) = (?, ?)`); what differs is asked of the dialect.
 */

export type SqlValue = null | number | string | boolean | readonly string[];
export type SqlRow = Readonly<Record<string, unknown>>;

interface SqlResult {
  readonly rows: SqlRow[];
  /** Rows returned (a SELECT, or RETURNING), else rows changed. */
  readonly rowCount: number;
}

export interface SqlQueryable {
  query(sql: string, params?: readonly SqlValue[]): Promise<SqlResult>;
}

export interface SqlClient extends SqlQueryable {
  readonly dialect: Dialect;
  /**
   * Runs `work` atomically: BEGIN … COMMIT, rolled back when it throws. Inside, query through `tx`
   * only (not through the client: on SQLite that waits for this very transaction to end).
   */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /**
   * `query` for an informational write (a token's last use) that caches may keep a stale copy of:
   * on SQLite it does not move the store's change mark, so it does not empty the caches in front
   * of the store. Whoever reads such a value through a cache must allow for it being stale.
   */
  informationalWrite(sql: string, params?: readonly SqlValue[]): Promise<SqlResult>;
}

/** What differs between the engines, as SQL fragments and error checks. */
export interface Dialect {
  readonly name: "sqlite" | "postgres";
  /** `column` is one of the strings of a list parameter (bound as one `?`, an array). */
  inList(column: string): string;
  /**
   * A row-locking clause (`FOR UPDATE`, `FOR SHARE`, `FOR UPDATE OF d SKIP LOCKED`) with a leading
   * space where rows can be locked; empty on SQLite, whose write transaction already excludes every
   * other writer.
   */
  lockRows(clause: string): string;
  /** The hidden column that orders rows by insertion, for ties (SQLite's rowid, PostgreSQL's `ord`). */
  readonly insertionOrder: string;
  isUniqueViolation(error: unknown): boolean;
  isForeignKeyViolation(error: unknown): boolean;
}
