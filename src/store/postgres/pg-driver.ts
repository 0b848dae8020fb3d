/**
 * The one file that imports `pg` (node-postgres): a connection pool, transactions on one pooled
 * connection, and the SQLSTATE codes the store turns into KnotErrors.
 *
 * Why these choices:
 * - One `pg.Pool` per store; every statement is parameterised (`$1…`), never built from values.
 * - A transaction holds one connection from BEGIN to COMMIT/ROLLBACK; a connection whose
 *   ROLLBACK failed is destroyed rather than returned, so no half-open transaction is reused.
 * - READ COMMITTED (set on every connection, whatever the server's default) plus explicit locks (row locks, advisory locks) where a
 *   read decides a write: each statement sees what committed before it, which is what the
 *   lock-then-read patterns (audit_append in migrations.ts, user-tools.ts) rely on.
 * - PostgreSQL text cannot hold U+0000: such a value is refused as BAD_REQUEST instead of failing
 *   as an internal error.
 * - The connection URL may carry a password: `location` is the URL without it, for messages.
 * - JSON and JSONB columns come back as text, as SQLite's do, so one reader parses both (../sql/records.ts).
 * - Closing waits for the work under way and refuses new work (pool.end() alone would leave a
 *   transaction that is waiting for a connection waiting forever).
 */
import { Client, Pool, types, type CustomTypesConfig, type PoolClient, type QueryResultRow } from "pg";
import { KnotError } from "../../errors.ts";
import { redactUrl, withReadCommitted } from "./url.ts";

export type PgValue = null | number | string | boolean | readonly string[];
export type PgRow = Readonly<Record<string, unknown>>;

export interface PgQueryable {
  query(sql: string, params?: readonly PgValue[]): Promise<{ rows: PgRow[]; rowCount: number }>;
}

export interface PgDb extends PgQueryable {
  /** The URL without its password. */
  readonly location: string;
  /** Runs `work` inside BEGIN … COMMIT on one connection, rolling back if it throws. */
  transaction<T>(work: (tx: PgQueryable) => Promise<T>): Promise<T>;
  /** Lends one connection for work that needs session state (a session-level advisory lock). */
  withConnection<T>(work: (connection: PgQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface PgDbOptions {
  /** `postgres://user:password@host:port/database?options=-c%20search_path%3Dschema` */
  readonly url: string;
  /** Connections in the pool (default 10). */
  readonly poolSize?: number;
}

const JSON_OID = 114;
const JSONB_OID = 3802;
const jsonAsText: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === JSON_OID || oid === JSONB_OID ? (value: string) => value : types.getTypeParser(oid, format)) as CustomTypesConfig["getTypeParser"],
};

/** SQLSTATEs: https://www.postgresql.org/docs/current/errcodes-appendix.html */
const UNIQUE_VIOLATION = "23505";
const FOREIGN_KEY_VIOLATION = "23503";
const CHARACTER_NOT_IN_REPERTOIRE = "22021"; // e.g. U+0000 in text
const UNTRANSLATABLE_CHARACTER = "22P05";

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === UNIQUE_VIOLATION;
export const isForeignKeyViolation = (error: unknown): boolean => sqlState(error) === FOREIGN_KEY_VIOLATION;

function translate(error: unknown): unknown {
  const state = sqlState(error);
  if (state === CHARACTER_NOT_IN_REPERTOIRE || state === UNTRANSLATABLE_CHARACTER) {
    return new KnotError("BAD_REQUEST", "The text contains a character the database cannot store (such as U+0000); remove it and try again.");
  }
  return error;
}

function queryable(target: Pool | PoolClient): PgQueryable {
  return {
    async query(sql, params = []) {
      try {
        const result = await target.query<QueryResultRow>(sql, params as unknown[]);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      } catch (error) {
        throw translate(error);
      }
    },
  };
}

/** Opens a pool; no connection is made until the first query. */
export function openPgDb(options: PgDbOptions): PgDb {
  const pool = new Pool({
    // READ COMMITTED whatever the database or role defaults to (managed services sometimes pick
    // REPEATABLE READ): the lock-then-read steps need each statement to see what committed before it.
    connectionString: withReadCommitted(options.url),
    max: options.poolSize ?? 10,
    // No connectionTimeoutMillis: in node-postgres it also bounds the wait for a free pooled
    // connection, and a burst of calls must queue (as they do on SQLite's lock), not lose their
    // audit rows. A refused connection still fails at once.
    keepAlive: true,
    application_name: "knot-tools", // shown in pg_stat_activity; a URL parameter overrides it
    types: jsonAsText,
  });
  // An idle connection that drops (server restart, network) is reported here; without a listener
  // it would crash the process. The pool replaces it, and the next query reports its own error.
  pool.on("error", () => {});

  const location = redactUrl(options.url);
  let closed: Promise<void> | undefined;
  /** Work under way: closing waits for it (pg's pool.end() would leave a waiting connect() pending forever). */
  const inFlight = new Set<Promise<unknown>>();

  function tracked<T>(operation: () => Promise<T>): Promise<T> {
    if (closed) return Promise.reject(new Error(`The PostgreSQL store ${location} is closed.`));
    const running = operation();
    inFlight.add(running);
    const forget = () => inFlight.delete(running);
    running.then(forget, forget);
    return running;
  }

  /**
   * A pooled connection for several statements. node-postgres leaves a checked-out client without an
   * 'error' listener, so a connection dropped between two statements (a server restart, an admin's
   * pg_terminate_backend) would be an uncaught exception that ends the process. Here it is noted:
   * the next statement fails on the dead connection, and the connection is not pooled again.
   */
  async function checkedOut<T>(work: (client: PoolClient) => Promise<T>, onFailure?: (client: PoolClient) => Promise<void>): Promise<T> {
    const client = await pool.connect();
    let dropped: Error | undefined;
    const noteDrop = (error: Error) => void (dropped ??= error);
    client.on("error", noteDrop);
    let broken = false;
    try {
      return await work(client);
    } catch (error) {
      // Pooled again only when the connection lives and `onFailure` (a rollback) cleaned up after the work.
      broken = dropped !== undefined || onFailure === undefined || (await onFailure(client).then(() => false, () => true));
      throw error;
    } finally {
      client.removeListener("error", noteDrop);
      client.release(dropped ?? broken);
    }
  }

  // Work that failed is dropped with its connection: whatever session state it left (locks, settings) goes with it.
  const withConnection = <T>(work: (connection: PgQueryable) => Promise<T>) => checkedOut((client) => work(queryable(client)));

  // A failed transaction is rolled back; the connection is pooled again only if the rollback worked.
  const transaction = <T>(work: (tx: PgQueryable) => Promise<T>) =>
    checkedOut(
      async (client) => {
        await client.query("BEGIN");
        const result = await work(queryable(client));
        await client.query("COMMIT");
        return result;
      },
      async (client) => void (await client.query("ROLLBACK")),
    );

  const pooled = queryable(pool);
  return {
    location,
    query: (sql, params) => tracked(() => pooled.query(sql, params)),
    transaction: (work) => tracked(() => transaction(work)),
    withConnection: (work) => tracked(() => withConnection(work)),
    close() {
      closed ??= Promise.allSettled([...inFlight]).then(() => pool.end());
      return closed;
    },
  };
}

export interface PgNotifyChannel {
  /**
   * NOTIFY on the channel (through the listening connection; delivered to every listener, this one
   * included). False when it could not be sent: the connection is down and being re-opened.
   */
  notify(payload: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * LISTEN on one channel over a dedicated connection (a pooled one would be returned and lose its
 * LISTEN), calling `onPayload` for each notification. A dropped connection is re-opened with
 * backoff; notifications sent to it meanwhile are lost, so `onReconnect` runs once it listens
 * again (the caller assumes it missed something).
 */
export async function listenPg(
  url: string, channel: string, onPayload: (payload: string) => void, onError: (error: Error) => void, options: { onReconnect?: () => void } = {},
): Promise<PgNotifyChannel> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  let client: InstanceType<typeof Client> | null = null;
  let closed = false;
  let retryMs = 250;
  let retryTimer: NodeJS.Timeout | null = null;
  /**
   * One retry at a time, backing off. A failed attempt schedules the next: an error while
   * connecting rejects `connect()` without an 'error' event, so retrying only on 'error' stopped
   * for good after one attempt that found the server still down.
   */
  const retryLater = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      open().then(() => {
        if (client) options.onReconnect?.();
      }, (error: Error) => {
        onError(error);
        retryLater();
      });
    }, (retryMs = Math.min(retryMs * 2, 10_000)));
    retryTimer.unref();
  };
  const open = async (): Promise<void> => {
    const next = new Client({ connectionString: url, keepAlive: true, application_name: "knot-tools-listen" });
    next.on("notification", (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
    });
    next.on("error", (error) => {
      onError(error);
      if (client === next) client = null;
      void next.end().catch(() => {});
      retryLater();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      void next.end().catch(() => {});
      throw error;
    }
    if (closed) return void (await next.end());
    client = next;
    retryMs = 250;
  };
  await open();
  return {
    async notify(payload) {
      if (!client) return false;
      await client.query("SELECT pg_notify($1, $2)", [channel, payload]);
      return true;
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
