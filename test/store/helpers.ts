/**
 * Runs the store suites once per backend: SQLite on a temp file, PostgreSQL in a fresh schema of a
 * throwaway cluster (test/helpers/postgres.ts) started once per test file.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import { createPgClient } from "../../src/store/postgres/pg-client.ts";
import { createPostgresStore } from "../../src/store/postgres/postgres-store.ts";
import { openPgDb } from "../../src/store/postgres/pg-driver.ts";
import type { SqlClient } from "../../src/store/sql/sql-client.ts";
import { createSqliteClient } from "../../src/store/sqlite/sqlite-client.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { openDatabase } from "../../src/store/sqlite/sqlite-driver.ts";
import type { Store, UserToolInput } from "../../src/store/store.ts";
import { sharedPostgres, type PostgresCluster } from "../helpers/postgres.ts";

export type BackendName = "sqlite" | "postgres";
type SqlParam = string | number | null;

export interface TestStore {
  readonly store: Store;
  readonly backend: BackendName;
  /** The database as openStore({ path }) takes it: a file path or a postgres:// URL. */
  readonly location: string;
  /** Another store on the same database, as a second server instance would open it; closed when the test ends. */
  another(): Promise<Store>;
  /** Raw SQL on the same database, bypassing the store (`?` placeholders). */
  sql(text: string, ...params: SqlParam[]): Promise<Record<string, unknown>[]>;
}

export interface StoreBackend {
  readonly name: BackendName;
  /** A new, empty, unopened database (a file path or a URL). */
  newLocation(): Promise<string>;
  /** A store with a stepping clock on a new empty database, closed when the current test ends. */
  open(): Promise<TestStore>;
  /** Raw SQL on the database at `location`, bypassing any store (`?` placeholders). */
  sqlOn(location: string): TestStore["sql"];
  /** The backend's SqlClient on a new empty database (no schema), closed when the current test ends. */
  client(): Promise<SqlClient>;
}

/** A fresh temp folder, removed when the test file ends. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "knot-store-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A clock that moves one second per reading, from a fixed start. */
export function steppingClock(start = Date.UTC(2026, 0, 1)): () => Date {
  let tick = 0;
  return () => new Date(start + 1000 * tick++);
}

function closing(store: Store): Store {
  after(() => store.close());
  return store;
}

const sqliteBackend: StoreBackend = {
  name: "sqlite",
  async newLocation() {
    return join(tempDir(), "knot.db");
  },
  async open() {
    const location = await this.newLocation();
    const store = closing(await createSqliteStore({ path: location, now: steppingClock() }));
    return {
      store,
      backend: "sqlite",
      location,
      another: async () => closing(await createSqliteStore({ path: location, now: steppingClock() })),
      sql: this.sqlOn(location),
    };
  },
  async client() {
    const db = openDatabase(await this.newLocation());
    const client = createSqliteClient(db);
    after(() => {
      client.close();
      db.close();
    });
    return client;
  },
  sqlOn(location) {
    return async (text, ...params) => {
      const raw = openDatabase(location);
      try {
        return raw.all(text, ...params);
      } finally {
        raw.close();
      }
    };
  },
};

function postgresBackend(cluster: () => Promise<PostgresCluster>): StoreBackend {
  return {
    name: "postgres",
    async newLocation() {
      return (await cluster()).createSchema();
    },
    async open() {
      const location = await this.newLocation();
      const store = closing(await createPostgresStore({ url: location, now: steppingClock() }));
      return {
        store,
        backend: "postgres",
        location,
        another: async () => closing(await createPostgresStore({ url: location, now: steppingClock() })),
        sql: this.sqlOn(location),
      };
    },
    async client() {
      const db = openPgDb({ url: await this.newLocation(), poolSize: 4 });
      after(() => db.close());
      return createPgClient(db);
    },
    sqlOn(location) {
      return async (text, ...params) => {
        const raw = openPgDb({ url: location, poolSize: 1 });
        let index = 0;
        try {
          return (await raw.query(text.replace(/\?/g, () => `$${(index += 1)}`), params)).rows;
        } finally {
          await raw.close();
        }
      };
    },
  };
}

/**
 * Declares `suite` once per backend, each inside `describe(<backend name>)`. Call once per file,
 * at the top level. Without PostgreSQL binaries the postgres suite fails (it is not skipped).
 */
export function forEachStore(suite: (backend: StoreBackend) => void): void {
  const cluster = sharedPostgres();
  describe("sqlite", () => suite(sqliteBackend));
  describe("postgres", () => {
    before(() => cluster()); // start it (or fail with the reason) before the first test's own clock starts
    suite(postgresBackend(cluster));
  });
}

export function toolInput(overrides: Partial<UserToolInput> = {}): UserToolInput {
  return {
    name: "hello",
    kind: "tool",
    description: "Says hello.",
    language: "js",
    parameters: [{ name: "who", type: "string", required: true }],
    code: "export default (request) => `hello ${request.params.who}`;",
    sharing: "private",
    active: true,
    ...overrides,
  };
}
