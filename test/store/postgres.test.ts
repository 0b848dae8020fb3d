// What is particular to the PostgreSQL store: its migrations, how openStore and the config choose
// it, text PostgreSQL cannot hold, and connections that fail or drop. The behaviour it shares with
// SQLite is tested once for both backends by the other files here.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, test } from "node:test";
import { configFromToml } from "../../src/config.ts";
import { KnotError } from "../../src/errors.ts";
import { auditRowHash, verifyAuditChain } from "../../src/store/audit-hash.ts";
import { openStore } from "../../src/store/index.ts";
import { hashedAroundSeq } from "../../src/store/postgres/audit-hash-parts.ts";
import { migrate } from "../../src/store/postgres/migrate.ts";
import { PG_MIGRATIONS } from "../../src/store/postgres/migrations.ts";
import { listenPg, openPgDb, type PgDb } from "../../src/store/postgres/pg-driver.ts";
import { createPostgresStore } from "../../src/store/postgres/postgres-store.ts";
import { isPostgresUrl, redactUrl } from "../../src/store/postgres/url.ts";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.ts";
import type { AuditEntryInput } from "../../src/store/store.ts";
import { waitFor } from "../helpers/peers.ts";
import { sharedPostgres, startPostgres } from "../helpers/postgres.ts";

const cluster = sharedPostgres();
before(() => cluster());
const now = () => new Date().toISOString();

async function withDb<T>(work: (db: PgDb, url: string) => Promise<T>): Promise<T> {
  const url = await (await cluster()).createSchema();
  const db = openPgDb({ url, poolSize: 2 });
  try {
    return await work(db, url);
  } finally {
    await db.close();
  }
}

const tables = async (db: PgDb) =>
  (await db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name")).rows.map(
    (row) => String(row.table_name),
  );

test("the PostgreSQL migrations have the SQLite ones' versions and names", () => {
  assert.deepEqual(
    PG_MIGRATIONS.map(({ version, name }) => [version, name]),
    MIGRATIONS.map(({ version, name }) => [version, name]),
  );
});

test("migrations apply once, are recorded, and a rerun applies none", async () => {
  await withDb(async (db) => {
    assert.deepEqual(await migrate(db, now), PG_MIGRATIONS.map((migration) => migration.version));
    const recorded = (await db.query("SELECT version, applied_at FROM schema_migrations ORDER BY version")).rows;
    assert.equal(recorded.length, PG_MIGRATIONS.length);
    assert.match(String(recorded[0]?.applied_at), /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(await migrate(db, now), []);
    assert.ok((await tables(db)).includes("audit_anchor"));
  });
});

test("a new migration is applied alone; a failing one leaves nothing behind", async () => {
  await withDb(async (db) => {
    await migrate(db, now);
    const extra = { version: PG_MIGRATIONS.length + 1, name: "extra", sql: "CREATE TABLE extra (x TEXT);" };
    assert.deepEqual(await migrate(db, now, [...PG_MIGRATIONS, extra]), [extra.version]);
    const broken = { version: extra.version + 1, name: "broken", sql: "CREATE TABLE half (x TEXT); INSERT INTO no_such_table VALUES (1);" };
    await assert.rejects(migrate(db, now, [...PG_MIGRATIONS, extra, broken]), /no_such_table/);
    assert.equal((await tables(db)).includes("half"), false);
    assert.equal((await db.query("SELECT 1 FROM schema_migrations WHERE version = $1", [broken.version])).rowCount, 0);
    // the lock was released with the failed run: the next run is not blocked
    assert.deepEqual(await migrate(db, now, [...PG_MIGRATIONS, extra]), []);
  });
});

test("openStore chooses PostgreSQL for postgres:// and postgresql:// URLs", async () => {
  const url = await (await cluster()).createSchema();
  for (const scheme of ["postgres", "postgresql"]) {
    const store = await openStore({ path: url.replace(/^postgres:/, `${scheme}:`) });
    await store.createUser({ name: `via-${scheme}`, isAdmin: false });
    await store.close();
  }
  const check = openPgDb({ url });
  const { rows } = await check.query("SELECT name FROM users ORDER BY name");
  await check.close();
  assert.deepEqual(rows.map((row) => row.name), ["via-postgres", "via-postgresql"]);
  assert.equal(isPostgresUrl("./data/postgres://x"), false);
  assert.equal(isPostgresUrl("PostgreSQL://h/db"), true);
});

test("the config keeps a PostgreSQL URL as written and still resolves a file path", () => {
  const url = "postgres://knot:secret@db.internal:5432/knot?sslmode=require";
  assert.equal(configFromToml({ server: { database: url } }, "/etc/knot").database, url);
  assert.equal(configFromToml({ server: { database: "data/knot.db" } }, "/etc/knot").database, "/etc/knot/data/knot.db");
});

test("redactUrl hides the password and keeps the rest", () => {
  const shown = redactUrl("postgres://knot:s3cret@127.0.0.1:5432/knot");
  assert.equal(shown.includes("s3cret"), false);
  assert.match(shown, /^postgres:\/\/knot:\*\*\*@127\.0\.0\.1:5432\/knot$/);
  assert.equal(redactUrl("postgres://knot@127.0.0.1/knot"), "postgres://knot@127.0.0.1/knot");
});

test("an unreachable server fails the open with the database named and no password", async () => {
  const closedPort = 1; // tcpmux: nothing listens there on a test machine
  const url = `postgres://knot:hunter2@127.0.0.1:${closedPort}/knot`;
  await assert.rejects(openStore({ path: url }), (error: Error) => {
    assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${closedPort}/knot`));
    assert.equal(error.message.includes("hunter2"), false);
    return true;
  });
});

test("text PostgreSQL cannot hold (U+0000) is BAD_REQUEST; in an audit row it is replaced, and the chain verifies", async () => {
  const url = await (await cluster()).createSchema();
  const store = await createPostgresStore({ url });
  try {
    await assert.rejects(store.createUser({ name: "a\u0000b", isAdmin: false }), (error: unknown) => {
      assert.ok(error instanceof KnotError);
      assert.equal(error.code, "BAD_REQUEST");
      return true;
    });
    const row = await store.appendAudit({
      at: now(), userId: null, tokenId: null, client: "c\u0000", surface: "api", tool: "x\u0000y",
      args: { raw: "nul \u0000 here" }, outcome: "ok", durationMs: 1, summary: "half \ud800 pair", requestId: null,
    });
    assert.equal(row.tool, "x\ufffdy");
    assert.deepEqual(row.args, { raw: "nul \u0000 here" }); // kept, escaped inside the JSON
    assert.deepEqual(await store.queryAudit({}), [row]);
    assert.deepEqual(await verifyAuditChain(store.iterateAudit()), { ok: true, rows: 1 });
  } finally {
    await store.close();
  }
});

test("connections the server drops are replaced: the store keeps working and the process does not crash", async () => {
  const base = await (await cluster()).createSchema();
  const url = `${base}&application_name=knot_victim`;
  const store = await createPostgresStore({ url, poolSize: 3 });
  const admin = openPgDb({ url: base });
  try {
    await Promise.all([store.countUsers(), store.countUsers(), store.countUsers()]); // three idle connections
    const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'knot_victim'");
    assert.ok(killed.rowCount >= 1);
    await new Promise((resolve) => setTimeout(resolve, 50)); // let the pool notice
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    assert.deepEqual(await store.getUser(ada.id), ada);
  } finally {
    await admin.close();
    await store.close();
  }
});

test("a connection that drops while checked out (between a transaction's statements) fails that work, not the process", async () => {
  const base = await (await cluster()).createSchema();
  const db = openPgDb({ url: `${base}&application_name=knot_checked_out`, poolSize: 2 });
  const admin = openPgDb({ url: base });
  try {
    for (const hold of [db.transaction.bind(db), db.withConnection.bind(db)]) {
      const work = hold(async (connection) => {
        await connection.query("SELECT 1");
        await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'knot_checked_out'");
        // The connection's end arrives while no query runs on it: pg emits 'error' on the client,
        // which node-postgres leaves without a listener while it is checked out.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await connection.query("SELECT 2");
      });
      await assert.rejects(work, /terminat|Connection|not queryable/i);
    }
    assert.equal((await db.query("SELECT 3 AS n")).rows[0]?.n, 3, "the pool opens a new connection for the next query");
  } finally {
    await admin.close();
    await db.close();
  }
});

test("the audit hash split around seq rebuilds exactly the canonical JSON auditRowHash hashes", () => {
  const base: AuditEntryInput = {
    at: "2026-01-01T00:00:00.000Z", userId: "u", tokenId: null, client: null, surface: "mcp", tool: "t",
    args: { seq: 0, nested: { "\"seq\":": [1, "é"] } }, outcome: "ok", durationMs: 0.1, summary: "s", requestId: "r",
  };
  const variants: AuditEntryInput[] = [
    base,
    { ...base, args: undefined, requestId: undefined as unknown as null },
    { ...base, summary: undefined as unknown as null, userId: undefined as unknown as null, tool: undefined as unknown as string },
    Object.fromEntries(Object.keys(base).map((key) => [key, undefined])) as unknown as AuditEntryInput,
  ];
  for (const entry of variants) {
    const { before, after } = hashedAroundSeq(entry);
    for (const seq of [1, 42, 9_007_199_254_740_991]) {
      const prevHash = "ab".repeat(32);
      const viaParts = createHash("sha256").update(`${prevHash}\n${before}${seq}${after}`).digest("hex");
      assert.equal(viaParts, auditRowHash(prevHash, { ...entry, seq }));
    }
  }
});

test("migration 5 (lib pins) on PostgreSQL: tools saved at version 3 read back with no pins and their owner's name", async () => {
  const url = await (await cluster()).createSchema();
  const db = openPgDb({ url, poolSize: 1 });
  try {
    await migrate(db, now, PG_MIGRATIONS.filter((migration) => migration.version <= 3));
    await db.query("INSERT INTO users (id, name, is_admin, created_at) VALUES ('u1', 'ada', false, $1)", [now()]);
    await db.query(
      `INSERT INTO user_tools (id, owner_id, name, kind, description, language, parameters, code, sharing, active, version, created_at, updated_at)
       VALUES ('t1', 'u1', 'old', 'tool', '', 'js', '[]', 'export default 1;', 'everyone', true, 1, $1, $1)`,
      [now()],
    );
  } finally {
    await db.close();
  }
  const store = await createPostgresStore({ url });
  try {
    const tool = await store.getUserTool("t1");
    assert.deepEqual([tool?.libPins, tool?.ownerName], [[], "ada"]);
  } finally {
    await store.close();
  }
});

test("migration 10: event data, causes and sink events stored as jsonb at version 9 become json and still read back", async () => {
  const url = await (await cluster()).createSchema();
  const db = openPgDb({ url, poolSize: 1 });
  try {
    await migrate(db, now, PG_MIGRATIONS.filter((migration) => migration.version <= 9));
    await db.query("INSERT INTO users (id, name, is_admin, created_at) VALUES ('u1', 'ada', false, $1)", [now()]);
    await db.query(
      `INSERT INTO user_tools (id, owner_id, name, kind, description, language, parameters, code, sharing, active, version, created_at, updated_at, sink_events)
       VALUES ('s1', 'u1', 'watch', 'tool', '', 'js', '[]', 'export default 1;', 'private', true, 1, $1, $1, '["tool.run"]')`,
      [now()],
    );
    await db.query("INSERT INTO events (id, type, at, data, caused_by) VALUES ('e1', 'tool.run', '2000-01-01T00:00:00.000Z', '{\"zeta\": 1, \"a\": 2}', '[\"s0\"]')");
    await db.query("INSERT INTO sink_deliveries (sink_id, event_seq, status, next_attempt_at, updated_at) VALUES ('s1', 1, 'pending', '2000-01-01T00:00:00.000Z', $1)", [now()]);
  } finally {
    await db.close();
  }
  const store = await createPostgresStore({ url });
  const check = openPgDb({ url, poolSize: 1 });
  try {
    const types = await check.query(
      "SELECT table_name || '.' || column_name AS col, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND data_type LIKE 'json%' ORDER BY 1",
    );
    assert.deepEqual(types.rows.filter((row) => row.data_type !== "json"), [], "no jsonb column is left");
    assert.deepEqual((await store.listSinks()).map((sink) => sink.events), [["tool.run"]]);
    const [claimed] = await store.claimDeliveries(now(), "9999-01-01T00:00:00.000Z", 1);
    assert.deepEqual([claimed?.event.data, claimed?.event.causedBy], [{ a: 2, zeta: 1 }, ["s0"]], "as jsonb had kept them");
  } finally {
    await check.close();
    await store.close();
  }
});

test("the LISTEN connection comes back after the server was down longer than the first retry, and says what it missed", async () => {
  // Its own cluster: the restart ends every connection of the shared one.
  const own = await startPostgres();
  const url = own.url();
  const payloads: string[] = [];
  let reconnects = 0;
  const channel = await listenPg(url, "knot_restart_probe", (payload) => payloads.push(payload), () => {}, { onReconnect: () => (reconnects += 1) });
  const sender = openPgDb({ url });
  try {
    assert.equal(await channel.notify("before"), true);
    const restarted = own.restart(1_500); // the first retries (0.5 s, 1 s) find the server down
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(await channel.notify("while down"), false, "a notification that could not be sent says so");
    await restarted;
    await waitFor(async () => {
      await sender.query("SELECT pg_notify('knot_restart_probe', 'after')").catch(() => {});
      return payloads.includes("after");
    }, 15_000, "notifications after the restart");
    assert.ok(payloads.includes("after"), "notifications never arrived again after the restart");
    assert.equal(reconnects, 1, "a re-opened connection is reported (notifications sent meanwhile were lost)");
  } finally {
    await channel.close();
    await sender.close();
    await own.stop();
  }
});
