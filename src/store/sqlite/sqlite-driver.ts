/**
 * The one file that imports `node:sqlite`: opens a database with the settings every connection
 * needs, caches prepared statements, and runs write transactions.
 *
 * Why these settings:
 * - `journal_mode=WAL`: readers never block the writer, so a long audit export does not stall requests.
 * - `synchronous=FULL`: every commit is fsynced to the WAL before it returns. With NORMAL a commit
 *   survives a crash of the process but the last few may roll back on power loss or an OS crash.
 *   That is not acceptable for the store's own writes: a revoked token must stay revoked. The
 *   price, measured on the development machine, is ~0.4 ms per write transaction (vs ~0.02 ms),
 *   and such writes are rare (saves, grants, tokens). Audit appends are one per call, so with
 *   `[server] durability = "normal"` (the default) they alone commit with NORMAL
 *   (`appendOnlyTransaction`): a row survives SIGKILL as soon as its commit returns, and power
 *   loss from the next synced commit, checkpoint or OS write-back on (docs/security-services.md §4.16).
 *   `durability = "full"` fsyncs audit commits too (on a writer thread, see audit-writer.ts).
 * - `foreign_keys=ON`, `busy_timeout=5000`: integrity, and waiting (not failing) when another
 *   process (e.g. the CLI beside a running server) holds the write lock.
 * - `defensive`: SQL cannot corrupt the file on purpose (writable_schema and friends).
 * - Write transactions are `BEGIN IMMEDIATE`: the write lock is taken before anything is read, so
 *   a read-then-write (the audit chain's previous hash) cannot interleave with another process.
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";

export type SqlValue = null | number | bigint | string | Uint8Array;
export type SqlRow = Readonly<Record<string, SqlValue>>;

export interface Db {
  /** Where the database lives (":memory:" for an in-memory one). */
  readonly location: string;
  run(sql: string, ...params: SqlValue[]): { changes: number };
  get(sql: string, ...params: SqlValue[]): SqlRow | undefined;
  all(sql: string, ...params: SqlValue[]): SqlRow[];
  /** The rows a statement returns (a SELECT, or RETURNING) and their count, else the rows it changed. */
  query(sql: string, params: readonly SqlValue[]): { rows: SqlRow[]; rowCount: number };
  /** Runs several statements without parameters (schema changes). */
  exec(sql: string): void;
  /**
   * Runs `work` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws. A call made
   * while a transaction is open joins it. `work` must be synchronous.
   */
  transaction<T>(work: () => T): T;
  /** Whether a transaction is open on this connection. */
  inTransaction(): boolean;
  /**
   * `transaction` for append-only rows nobody caches a read of (the audit log): its writes do not
   * move `changeMark` (so they do not empty the caches in front of the store), and with
   * durability "normal" it commits without an fsync (see the header).
   */
  appendOnlyTransaction<T>(work: () => T): T;
  /**
   * Runs `work` (synchronous writes the caches may keep a stale copy of, like a token's last use)
   * without moving `changeMark`. Other processes still see the commit in their data_version.
   */
  untracked<T>(work: () => T): T;
  /** Every write made on this connection so far, tracked or not (what the WAL checkpoints follow). */
  writeCount(): number;
  /**
   * Changes whenever data read through this connection may have changed: another connection or
   * process committed (`PRAGMA data_version`), or this one wrote outside `appendOnlyTransaction`
   * and `untracked`.
   * Costs one tiny statement, so in-memory caches can check it on every request.
   */
  changeMark(): string;
  close(): void;
}

export const MEMORY = ":memory:";
const BUSY_TIMEOUT_MS = 5000;

/** `full` fsyncs every commit (survives power loss); `normal` every commit but append-only ones (see the header). */
export type Durability = "full" | "normal";

/** The unit of work (a request) within which `changeMark` may reuse what it read; undefined outside one. */
export type MarkScope = () => object | undefined;

/** Opens (creating if missing, with its parent folder) the database at `path`; `clock` ages the change mark's memo (tests set it). */
export function openDatabase(path: string, durability: Durability = "full", markScope?: MarkScope, clock: () => number = () => performance.now()): Db {
  const location = path === MEMORY ? MEMORY : resolve(path);
  if (location !== MEMORY) mkdirSync(dirname(location), { recursive: true });
  const database = new DatabaseSync(location, { defensive: true, enableForeignKeyConstraints: true, timeout: BUSY_TIMEOUT_MS });
  try {
    // busy_timeout first: switching to WAL needs a lock another process may be holding.
    database.exec(
      `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;`,
    );
  } catch (error) {
    database.close();
    throw error;
  }
  return wrap(database, location, durability, markScope, clock);
}

/** The longest a request's data_version read is reused, whatever the loop does meanwhile. */
export const VERSION_MEMO_MS = 1;

/** Whether a statement may write: anything but a plain read (a false "yes" only empties caches early). */
const mayWrite = (sql: string) => !/^\s*(SELECT|PRAGMA\s+data_version)\b/i.test(sql);

function wrap(database: DatabaseSync, location: string, durability: Durability, markScope: MarkScope | undefined, clock: () => number): Db {
  const statements = new Map<string, StatementSync>();
  /** Whether a prepared statement returns rows (columns() is asked once per statement). */
  const returnsRows = new WeakMap<StatementSync, boolean>();
  let open = true;
  // Writes through this connection (data_version only counts other connections' commits).
  let writes = 0;
  let untracked = false;
  let allWrites = 0;
  /** Statements that may write, judged once when prepared (the hot path only looks it up). */
  const writing = new WeakSet<StatementSync>();
  const wrote = (prepared: StatementSync) => {
    if (!writing.has(prepared)) return;
    allWrites += 1;
    if (!untracked) writes += 1;
  };

  // Reading data_version opens a read transaction (two fcntl calls on the -shm file, ~20 µs of a
  // call in a running server), and one request asks two to four times. Within one request (the
  // `markScope` it runs in) and one turn of the event loop it is read once: every request still
  // reads it afresh, and this connection's writes move `writes` at once. The memo is forgotten at
  // the loop's next check phase and, whatever the phase, once it is VERSION_MEMO_MS old (a read in
  // a check phase would otherwise last into the next iteration's timers and I/O). Inside a
  // transaction it is always read afresh: there it decides whether what was read before the write
  // lock still holds.
  let version: { value: string; scope: object; readAt: number } | undefined;
  const forgetVersion = (): void => {
    version = undefined;
  };
  const readVersion = (): string => String(statement("PRAGMA data_version").get()?.data_version);
  function dataVersion(): string {
    const scope = markScope?.();
    if (scope === undefined || database.isTransaction) return readVersion();
    const now = clock();
    if (version?.scope !== scope || now - version.readAt >= VERSION_MEMO_MS) {
      if (version === undefined) setImmediate(forgetVersion);
      version = { value: readVersion(), scope, readAt: now };
    }
    return version.value;
  }

  function untrackedWork<T>(work: () => T): T {
    untracked = true;
    try {
      return work();
    } finally {
      untracked = false;
    }
  }

  function statement(sql: string): StatementSync {
    let prepared = statements.get(sql);
    if (prepared === undefined) {
      prepared = database.prepare(sql);
      statements.set(sql, prepared);
      if (mayWrite(sql)) writing.add(prepared);
    }
    return prepared;
  }

  function query(sql: string, params: readonly SqlValue[]): { rows: SqlRow[]; rowCount: number } {
    const prepared = statement(sql);
    wrote(prepared);
    let hasRows = returnsRows.get(prepared);
    if (hasRows === undefined) returnsRows.set(prepared, (hasRows = prepared.columns().length > 0));
    if (!hasRows) return { rows: [], rowCount: Number(prepared.run(...params).changes) };
    const rows = prepared.all(...params) as SqlRow[];
    return { rows, rowCount: rows.length };
  }

  function transaction<T>(work: () => T): T {
    if (database.isTransaction) return work();
    database.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      if (result instanceof Promise) throw new TypeError("a transaction's work must be synchronous");
      database.exec("COMMIT");
      return result;
    } catch (error) {
      if (database.isTransaction) database.exec("ROLLBACK");
      throw error;
    }
  }

  return {
    location,
    run: (sql, ...params) => {
      const prepared = statement(sql);
      wrote(prepared);
      return { changes: Number(prepared.run(...params).changes) };
    },
    get: (sql, ...params) => statement(sql).get(...params) as SqlRow | undefined,
    all: (sql, ...params) => statement(sql).all(...params) as SqlRow[],
    query,
    exec: (sql) => {
      allWrites += 1;
      if (!untracked) writes += 1; // schema changes, BEGIN/COMMIT: counted, never judged
      database.exec(sql);
    },
    transaction,
    inTransaction: () => database.isTransaction,
    appendOnlyTransaction<T>(work: () => T): T {
      if (database.isTransaction) return work();
      if (durability === "normal") database.exec("PRAGMA synchronous = NORMAL");
      try {
        return untrackedWork(() => transaction(work));
      } finally {
        if (durability === "normal") database.exec("PRAGMA synchronous = FULL");
      }
    },
    // Inside an open transaction the writes join it, and count as that transaction's do.
    untracked: <T>(work: () => T): T => (database.isTransaction ? work() : untrackedWork(work)),
    writeCount: () => allWrites,
    changeMark: () => `${dataVersion()}:${writes}`,
    close() {
      if (!open) return;
      open = false;
      statements.clear();
      try {
        database.exec("PRAGMA optimize"); // keeps the query planner's statistics fresh (cheap)
      } finally {
        database.close();
      }
    },
  };
}

/** SQLite's extended result codes for the constraint failures the store turns into KnotErrors. */
const UNIQUE_CODES = new Set([1555 /* PRIMARYKEY */, 2067 /* UNIQUE */]);
const FOREIGN_KEY_CODE = 787;

function errcode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" ? code : undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = errcode(error);
  return code !== undefined && UNIQUE_CODES.has(code);
}

export function isForeignKeyViolation(error: unknown): boolean {
  return errcode(error) === FOREIGN_KEY_CODE;
}
