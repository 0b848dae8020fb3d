/**
 * Brings a PostgreSQL database up to the schema this build knows, one migration per transaction,
 * and refuses a database written by a newer build (running old code on a newer schema could
 * silently drop what the newer code relies on).
 *
 * Several instances may start at once against one database: the whole run holds a session-level
 * advisory lock, so one instance migrates while the others wait and then find nothing to do.
 */
import { KnotError } from "../../errors.ts";
import { checkMigrationOrder, refuseNewerSchema } from "../migration-rules.ts";
import { lockMigrations, unlockMigrations } from "./locks.ts";
import { PG_MIGRATIONS, type PgMigration } from "./migrations.ts";
import type { PgDb, PgQueryable } from "./pg-driver.ts";

/** Applies the migrations not yet recorded; returns the versions it applied. */
export async function migrate(db: PgDb, now: () => string, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  checkMigrationOrder(migrations);
  return db.withConnection(async (connection) => {
    await refuseNonUtf8(connection, db.location);
    await lockMigrations(connection);
    // If anything below throws, withConnection drops the connection, and the lock with it.
    await connection.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const recorded = (await connection.query("SELECT version FROM schema_migrations ORDER BY version")).rows.map((row) => Number(row.version));
    refuseNewerSchema(db.location, recorded, migrations, "database");
    const done = new Set(recorded);
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await inTransaction(connection, async () => {
        await connection.query(migration.sql);
        await connection.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
          migration.version,
          migration.name,
          now(),
        ]);
      });
      applied.push(migration.version);
    }
    await unlockMigrations(connection);
    return applied;
  });
}

async function inTransaction(connection: PgQueryable, work: () => Promise<void>): Promise<void> {
  await connection.query("BEGIN");
  try {
    await work();
    await connection.query("COMMIT");
  } catch (error) {
    await connection.query("ROLLBACK");
    throw error;
  }
}

/** Text is stored as written and audit hashes are taken over UTF-8: other encodings would change or refuse it. */
async function refuseNonUtf8(connection: PgQueryable, location: string): Promise<void> {
  const [row] = (await connection.query("SELECT current_setting('server_encoding') AS encoding")).rows;
  const encoding = String(row?.encoding);
  if (encoding === "UTF8") return;
  throw new KnotError(
    "CONFIG_INVALID",
    `The PostgreSQL database ${location} uses the ${encoding} encoding; knot-tools needs UTF8. Create it with: CREATE DATABASE … ENCODING 'UTF8'.`,
  );
}
