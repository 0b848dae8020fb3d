/**
 * Brings a database up to the schema this build knows, one migration per transaction, and refuses
 * a database written by a newer build: running old code on a newer schema could silently drop
 * what the newer code relies on.
 */
import { checkMigrationOrder, refuseNewerSchema } from "../migration-rules.ts";
import type { Db } from "./sqlite-driver.ts";
import { MIGRATIONS, type Migration } from "./migrations.ts";

/** Applies the migrations not yet recorded; returns the versions it applied. */
export function migrate(db: Db, now: () => string, migrations: readonly Migration[] = MIGRATIONS): number[] {
  checkMigrationOrder(migrations);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const recorded = db.all("SELECT version FROM schema_migrations ORDER BY version").map((row) => Number(row.version));
  refuseNewerSchema(db.location, recorded, migrations, "database file");

  const applied: number[] = [];
  for (const migration of migrations) {
    db.transaction(() => {
      // Checked again inside the write lock: another process may have just applied it.
      if (db.get("SELECT 1 FROM schema_migrations WHERE version = ?", migration.version)) return;
      db.exec(migration.sql);
      db.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", migration.version, migration.name, now());
      applied.push(migration.version);
    });
  }
  return applied;
}
