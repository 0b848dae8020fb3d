/**
 * Advisory lock keys. Several instances may share one database, so the few read-then-write steps
 * that must not interleave (migrating, appending to the audit chain) take a PostgreSQL advisory
 * lock. The key is (class, hash of the current schema), so two knot-tools installations in two
 * schemas of one database do not wait for each other.
 */
import type { PgQueryable } from "./pg-driver.ts";

/** 'knot' and 'kaud' as 32-bit integers: arbitrary, chosen to be unlikely in other applications. */
const MIGRATION_LOCK_CLASS = 0x6b6e6f74;
/** Also taken inside the `audit_append` SQL function (migrations.ts), which gets it as an argument. */
export const AUDIT_LOCK_CLASS = 0x6b617564;

const SCHEMA_KEY = "hashtext(coalesce(current_schema(), ''))";

/** Held by this connection until `unlockMigrations` or until the connection closes. */
export async function lockMigrations(connection: PgQueryable): Promise<void> {
  await connection.query(`SELECT pg_advisory_lock($1, ${SCHEMA_KEY})`, [MIGRATION_LOCK_CLASS]);
}

export async function unlockMigrations(connection: PgQueryable): Promise<void> {
  await connection.query(`SELECT pg_advisory_unlock($1, ${SCHEMA_KEY})`, [MIGRATION_LOCK_CLASS]);
}

/** Held until the surrounding transaction ends; later statements in it see every earlier append. */
export async function lockAuditChain(tx: PgQueryable): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock($1, ${SCHEMA_KEY})`, [AUDIT_LOCK_CLASS]);
}
