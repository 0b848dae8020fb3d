/** The rules both backends' migrators follow (sqlite/migrate.ts, postgres/migrate.ts). */
import { KnotError } from "../errors.ts";

interface Versioned {
  readonly version: number;
  readonly name: string;
}

/** Versions run 1, 2, 3… in list order: a gap or a swap is a programming error, caught at start. */
export function checkMigrationOrder(migrations: readonly Versioned[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`migration ${migration.name} has version ${migration.version}; expected ${index + 1}`);
    }
  });
}

/**
 * Refuses a database written by a newer build: running old code on a newer schema could silently
 * drop what the newer code relies on.
 * @param recorded the versions in the database's schema_migrations, ascending
 * @param place how to name another place to point at ("database file", "database")
 */
export function refuseNewerSchema(location: string, recorded: readonly number[], migrations: readonly Versioned[], place: string): void {
  const known = new Set(migrations.map((migration) => migration.version));
  const unknown = recorded.filter((version) => !known.has(version));
  if (unknown.length === 0) return;
  const newest = migrations.at(-1)?.version ?? 0;
  throw new KnotError(
    "STORE_VERSION",
    `The database ${location} has schema version ${unknown.at(-1)}, but this knot-tools knows versions up to ${newest}. ` +
      `It was written by a newer knot-tools: run that version, or point this one at another ${place}.`,
  );
}
