/**
 * The SqlClient on a PostgreSQL pool: the shared queries' `?` placeholders numbered `$1…` (once
 * per distinct statement), and each transaction on one pooled connection (pg-driver.ts).
 */
import { KnotError } from "../../errors.ts";
import type { Dialect, SqlClient, SqlQueryable } from "../sql/sql-client.ts";
import { isForeignKeyViolation, isUniqueViolation, type PgDb, type PgQueryable } from "./pg-driver.ts";

const dialect: Dialect = {
  name: "postgres",
  inList: (column) => `${column} = ANY (?::text[])`,
  lockRows: (clause) => ` ${clause}`,
  insertionOrder: "ord",
  isUniqueViolation,
  isForeignKeyViolation,
};

/** `?` → `$1, $2, …`, leaving quoted text and identifiers alone. */
export function numberPlaceholders(sql: string): string {
  let index = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (match) => (match === "?" ? `$${(index += 1)}` : match));
}

function numbered(target: PgQueryable, cache: Map<string, string>): SqlQueryable {
  return {
    query(sql, params = []) {
      let text = cache.get(sql);
      if (text === undefined) cache.set(sql, (text = numberPlaceholders(sql)));
      return target.query(text, params);
    },
  };
}

const ended = () => new KnotError("INTERNAL", "a query ran on a transaction that has already ended");

export function createPgClient(db: PgDb): SqlClient {
  // The store's statements are a fixed set (audit filters combine into a few dozen at most).
  const cache = new Map<string, string>();
  const plain = numbered(db, cache);
  return {
    dialect,
    ...plain,
    // PostgreSQL keeps no change mark (nothing is cached in front of it): a plain query.
    informationalWrite: (sql, params) => plain.query(sql, params),
    transaction: (work) =>
      db.transaction(async (tx) => {
        const inside = numbered(tx, cache);
        let done = false;
        try {
          // Its connection goes back to the pool at the end: a kept handle must not reach it there.
          return await work({ query: (sql, params) => (done ? Promise.reject(ended()) : inside.query(sql, params)) });
        } finally {
          done = true;
        }
      }),
  };
}
