import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { KnotError } from "../../src/errors.ts";
import { openStore } from "../../src/store/index.ts";
import { PG_MIGRATIONS } from "../../src/store/postgres/migrations.ts";
import { migrate } from "../../src/store/sqlite/migrate.ts";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.ts";
import { openDatabase } from "../../src/store/sqlite/sqlite-driver.ts";
import { forEachStore, tempDir } from "./helpers.ts";

const now = () => new Date().toISOString();

test("the migration list is numbered 1..n", () => {
  assert.deepEqual(
    MIGRATIONS.map((migration) => migration.version),
    MIGRATIONS.map((_, index) => index + 1),
  );
});

test("released migrations are never edited: their SQL is byte for byte what shipped", () => {
  // sha256 prefixes of each released migration's SQL (SQLite, then PostgreSQL). A database that
  // ran a migration never runs it again, so an edit would make databases differ by age.
  const released = {
    sqlite: ["d6bc8a9599633dcc", "7ab8f75cc6ba561b", "28401d1300c97608", "3b8a24f622fb1533", "08a1c76d8136bcb4", "e475b28770dc7d11", "21d5b19f85606a25"],
    postgres: ["4dc48bff497f4078", "522283a2aa8e231f", "566755278940e358", "2f4ba345c63a3055", "ca06699d813f8ccb", "ccfb0af80e0a8dce", "1824be7e98585468"],
  };
  const digest = (sql: string) => createHash("sha256").update(sql).digest("hex").slice(0, 16);
  assert.deepEqual(MIGRATIONS.slice(0, released.sqlite.length).map((migration) => digest(migration.sql)), released.sqlite);
  assert.deepEqual(PG_MIGRATIONS.slice(0, released.postgres.length).map((migration) => digest(migration.sql)), released.postgres);
});

test("a migration list out of order or with a gap is refused before anything is applied", () => {
  const db = openDatabase(join(tempDir(), "order.db"));
  const [first, second, third] = MIGRATIONS;
  assert.throws(() => migrate(db, now, [first!, third!]), /has version 3; expected 2/);
  assert.throws(() => migrate(db, now, [second!, first!]), /has version 2; expected 1/);
  assert.equal(db.get("SELECT name FROM sqlite_master WHERE name = 'schema_migrations'"), undefined, "nothing was created");
  db.close();
});

test("migrations apply once, are recorded, and a reopen applies none", () => {
  const path = join(tempDir(), "m.db");
  const db = openDatabase(path);
  assert.deepEqual(migrate(db, now), MIGRATIONS.map((migration) => migration.version));
  const recorded = db.all("SELECT version, name, applied_at FROM schema_migrations ORDER BY version");
  assert.equal(recorded.length, MIGRATIONS.length);
  assert.match(String(recorded[0]?.applied_at), /^\d{4}-\d\d-\d\dT/);
  db.close();

  const again = openDatabase(path);
  assert.deepEqual(migrate(again, now), []);
  assert.equal(again.all("SELECT version FROM schema_migrations").length, MIGRATIONS.length);
  again.close();
});

test("a new migration is applied on reopen, alone", () => {
  const db = openDatabase(join(tempDir(), "m.db"));
  migrate(db, now);
  const next = [...MIGRATIONS, { version: MIGRATIONS.length + 1, name: "extra", sql: "CREATE TABLE extra (x TEXT) STRICT;" }];
  assert.deepEqual(migrate(db, now, next), [MIGRATIONS.length + 1]);
  assert.ok(db.get("SELECT 1 FROM sqlite_schema WHERE name = 'extra'"));
  db.close();
});

test("a failing migration leaves nothing behind", () => {
  const db = openDatabase(join(tempDir(), "m.db"));
  migrate(db, now);
  const broken = [
    ...MIGRATIONS,
    { version: MIGRATIONS.length + 1, name: "broken", sql: "CREATE TABLE half (x TEXT) STRICT; INSERT INTO no_such_table VALUES (1);" },
  ];
  assert.throws(() => migrate(db, now, broken), /no such table/);
  assert.equal(db.get("SELECT 1 FROM sqlite_schema WHERE name = 'half'"), undefined);
  assert.equal(db.get("SELECT 1 FROM schema_migrations WHERE version = ?", MIGRATIONS.length + 1), undefined);
  db.close();
});


test("opening creates the parent folder and sets the connection pragmas", async () => {
  const path = join(tempDir(), "nested", "deeper", "knot.db");
  const store = await openStore({ path });
  assert.ok(existsSync(path));
  await store.close();
  const db = openDatabase(path);
  assert.equal(db.get("PRAGMA journal_mode")?.journal_mode, "wal");
  assert.equal(db.get("PRAGMA foreign_keys")?.foreign_keys, 1);
  assert.equal(db.get("PRAGMA synchronous")?.synchronous, 2); // FULL
  assert.equal(db.get("PRAGMA busy_timeout")?.timeout, 5000);
  db.close();
});

test("an in-memory store works", async () => {
  const store = await openStore({ path: ":memory:" });
  await store.createUser({ name: "ada", isAdmin: false });
  assert.equal(await store.countUsers(), 1);
  await store.close();
});

test("a transaction rolls back when its work throws, and refuses async work", () => {
  const db = openDatabase(":memory:");
  db.exec("CREATE TABLE t (x INTEGER) STRICT");
  assert.throws(() =>
    db.transaction(() => {
      db.run("INSERT INTO t VALUES (1)");
      throw new Error("boom");
    }),
  );
  assert.throws(() => db.transaction(async () => db.run("INSERT INTO t VALUES (2)")), /synchronous/);
  assert.equal(db.get("SELECT count(*) AS n FROM t")?.n, 0);
  db.close();
});

forEachStore((backend) => {
  test("a database from a newer build refuses to open with STORE_VERSION", async () => {
    const { store, location, sql } = await backend.open();
    await store.createUser({ name: "ada", isAdmin: true });
    await sql("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from the future', ?)", 999, now());

    await assert.rejects(openStore({ path: location }), (error: unknown) => {
      assert.ok(error instanceof KnotError);
      assert.equal(error.code, "STORE_VERSION");
      assert.match(error.message, /999/);
      assert.equal(error.message.includes("postgres://postgres@"), backend.name === "postgres"); // names the database
      return true;
    });
  });

  test("data survives close and reopen", async () => {
    const path = await backend.newLocation();
    const first = await openStore({ path });
    const ada = await first.createUser({ name: "ada", isAdmin: true });
    await first.addMembership(ada.id, "ops");
    await first.grant({ subject: { kind: "group", group: "ops" }, permission: "plugin.metrics.export" });
    const token = await first.createToken({ userId: ada.id, name: "cli", secretHash: "a".repeat(64), scopes: null, expiresAt: null });
    const tool = await first.createUserTool(ada.id, {
      name: "t", kind: "tool", description: "d", language: "js", parameters: [], code: "1", sharing: "everyone", active: true,
    });
    await first.appendAudit({
      at: "2026-01-01T00:00:00.000Z", userId: ada.id, tokenId: token.id, client: null, surface: "cli", tool: "t",
      args: { n: 1 }, outcome: "ok", durationMs: 3, summary: null, requestId: null,
    });
    await first.close();

    const second = await openStore({ path });
    assert.deepEqual(await second.getUser(ada.id), ada);
    assert.deepEqual(await second.permissionsOf(ada.id), ["plugin.metrics.export"]);
    assert.deepEqual(await second.getToken(token.id), token);
    assert.deepEqual(await second.getUserTool(tool.id), tool);
    const rows = await second.queryAudit({});
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0]?.args, { n: 1 });
    await second.close();
  });
});

test("migration 5 (lib pins): tools saved at version 3 read back with no pins and their owner's name", async () => {
  const path = join(tempDir(), "v3.db");
  const db = openDatabase(path);
  migrate(db, now, MIGRATIONS.filter((migration) => migration.version <= 3));
  db.run("INSERT INTO users (id, name, is_admin, created_at) VALUES ('u1', 'ada', 0, ?)", now());
  db.run(
    `INSERT INTO user_tools (id, owner_id, name, kind, description, language, parameters, code, sharing, active, version, created_at, updated_at)
     VALUES ('t1', 'u1', 'old', 'tool', '', 'js', '[]', 'import { f } from "lib:x"; export default f;', 'everyone', 1, 1, ?, ?)`,
    now(), now(),
  );
  db.close();
  const store = await openStore({ path });
  try {
    const tool = await store.getUserTool("t1");
    assert.deepEqual([tool?.libPins, tool?.ownerName], [[], "ada"]);
  } finally {
    await store.close();
  }
});
