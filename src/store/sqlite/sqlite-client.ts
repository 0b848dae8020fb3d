/**
 * The SqlClient on one SQLite connection. node:sqlite is synchronous; the client is async so the
 * shared queries (../sql/) run unchanged on PostgreSQL. What that must not cost is atomicity, or a
 * stall: a transaction's statements are separated by awaits, and
 * - on its own connection any statement run in between would join it (and roll back with it);
 * - on another connection to the same file in this process (a second store instance), a write or
 *   BEGIN IMMEDIATE would block the thread on the lock this transaction holds: it cannot finish
 *   while the thread is blocked, so the wait would last the whole busy timeout and fail.
 * So while a transaction is open on a file, every other statement and transaction of this process
 * on that file waits for its turn, in order of arrival; with none open, a query runs at once.
 * A transaction's awaits are microtasks (its work only queries), so a turn is short. Other
 * processes and the audit writer thread wait on SQLite's lock (busy_timeout) as before.
 */
import { KnotError } from "../../errors.ts";
import type { Dialect, SqlClient, SqlQueryable, SqlValue } from "../sql/sql-client.ts";
import { isForeignKeyViolation, isUniqueViolation, MEMORY, type Db, type SqlValue as SqliteValue } from "./sqlite-driver.ts";

export interface SqliteClient extends SqlClient {
  /** Runs synchronous work on the raw connection in its turn (migrations, the audit append). */
  exclusive<T>(work: (db: Db) => T | Promise<T>): Promise<T>;
  /** Lets go of the file's turns (the caller closes the connection). */
  close(): void;
}

const dialect: Dialect = {
  name: "sqlite",
  // A list is bound as one JSON text (see bind) and unpacked by json_each.
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  lockRows: () => "",
  insertionOrder: "rowid",
  isUniqueViolation,
  isForeignKeyViolation,
};

/** Booleans bind as 1/0 natively; a list becomes the JSON text `inList` reads. */
const bind = (params: readonly SqlValue[]): SqliteValue[] =>
  params.some(Array.isArray)
    ? params.map((value) => (Array.isArray(value) ? JSON.stringify(value) : (value as SqliteValue)))
    : (params as SqliteValue[]);

/** Whose turn it is on one database file, for every client of this process on it. */
interface Turns {
  /** Settles when the current turn ends; null when nobody holds one. */
  current: Promise<void> | null;
  clients: number;
}

const turnsByFile = new Map<string, Turns>();

function turnsFor(location: string): Turns {
  if (location === MEMORY) return { current: null, clients: 1 }; // private to its one connection
  const turns = turnsByFile.get(location) ?? { current: null, clients: 0 };
  turns.clients += 1;
  turnsByFile.set(location, turns);
  return turns;
}

export function createSqliteClient(db: Db): SqliteClient {
  const turns = turnsFor(db.location);
  let closed = false;
  const run = (sql: string, params: readonly SqlValue[] = []) => db.query(sql, bind(params));

  /** Waits for the current turn (and those queued before this call) to end, then runs `work` as the turn. */
  async function inTurn<T>(work: () => Promise<T> | T): Promise<T> {
    while (turns.current) await turns.current;
    let end!: () => void;
    turns.current = new Promise((resolve) => (end = resolve));
    try {
      return await work();
    } finally {
      turns.current = null;
      end();
    }
  }

  /** Runs `work` at once when no turn is open (the hot path's reads), else in its turn. */
  function whenFree<T>(work: () => T): Promise<T> {
    if (turns.current) return inTurn(work);
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async function transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T> {
    return inTurn(async () => {
      let done = false;
      const tx: SqlQueryable = {
        async query(sql, params) {
          if (done) throw new KnotError("INTERNAL", "a query ran on a transaction that has already ended");
          return run(sql, params);
        },
      };
      db.exec("BEGIN IMMEDIATE");
      try {
        const result = await work(tx);
        db.exec("COMMIT");
        return result;
      } catch (error) {
        if (db.inTransaction()) db.exec("ROLLBACK"); // a failed COMMIT may have ended it already
        throw error;
      } finally {
        done = true;
      }
    });
  }

  return {
    dialect,
    query: (sql, params) => whenFree(() => run(sql, params)),
    transaction,
    informationalWrite: (sql, params) => whenFree(() => db.untracked(() => run(sql, params))),
    async exclusive(work) {
      return turns.current ? inTurn(() => work(db)) : work(db);
    },
    close() {
      if (closed) return;
      closed = true;
      if ((turns.clients -= 1) === 0 && turnsByFile.get(db.location) === turns) turnsByFile.delete(db.location);
    },
  };
}
