/**
 * Brings a database up to the schema this build knows, one migration per transaction, and refuses
 * a database written by a newer build: running old code on a newer schema could silently drop
 * what the newer code relies on.
 */
import { KnotError } from "../../errors.ts";
import type { Db } from "./sqlite-driver.ts";
import { MIGRATIONS, type Migration } from "./migrations.ts";

/** Applies the migrations not yet recorded; returns the versions it applied. */
export function migrate(db: Db, now: () => string, migrations: readonly Migration[] = MIGRATIONS): number[] {
  checkOrder(migrations);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  refuseNewerSchema(db, migrations);

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

function refuseNewerSchema(db: Db, migrations: readonly Migration[]): void {
  const known = new Set(migrations.map((migration) => migration.version));
  const unknown = db
    .all("SELECT version FROM schema_migrations ORDER BY version")
    .map((row) => Number(row.version))
    .filter((version) => !known.has(version));
  if (unknown.length === 0) return;
  const newest = migrations.at(-1)?.version ?? 0;
  throw new KnotError(
    "STORE_VERSION",
    `The database ${db.location} has schema version ${unknown.at(-1)}, but this knot-tools knows versions up to ${newest}. ` +
      "It was written by a newer knot-tools: run that version, or point this one at another database file.",
  );
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`migration ${migration.name} has version ${migration.version}; expected ${index + 1}`);
    }
  });
}
