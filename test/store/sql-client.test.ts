// The seam the shared store queries run on (src/store/sql/sql-client.ts), on both backends:
// parameters and results read the same, transactions are atomic and never interleave.
import assert from "node:assert/strict";
import { test } from "node:test";
import { numberPlaceholders } from "../../src/store/postgres/pg-client.ts";
import type { SqlClient } from "../../src/store/sql/sql-client.ts";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { forEachStore, toolInput } from "./helpers.ts";

async function withTable(client: SqlClient): Promise<SqlClient> {
  const flag = client.dialect.name === "sqlite" ? "INTEGER" : "BOOLEAN";
  await client.query(`CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, on_duty ${flag} NOT NULL, n INTEGER NOT NULL DEFAULT 0)`);
  return client;
}

test("placeholders: each ? becomes $n in order; quoted text and identifiers keep theirs", () => {
  assert.equal(numberPlaceholders("SELECT ? , '?' || ?, \"a?\" FROM t WHERE x = ? AND y = 'it''s ?'"), "SELECT $1 , '?' || $2, \"a?\" FROM t WHERE x = $3 AND y = 'it''s ?'");
  assert.equal(numberPlaceholders("SELECT 1"), "SELECT 1");
});

forEachStore((backend) => {
  test("sql client: booleans, lists, RETURNING and changed-row counts read the same", async () => {
    const client = await withTable(await backend.client());
    const inserted = await client.query("INSERT INTO things (id, name, on_duty) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?) RETURNING id", [1, "ada", true, 2, "bob", false, 3, "cy", true]);
    assert.equal(inserted.rowCount, 3);
    assert.deepEqual(inserted.rows.map((row) => Number(row.id)), [1, 2, 3]);
    const onDuty = await client.query("SELECT name FROM things WHERE on_duty ORDER BY name");
    assert.deepEqual(onDuty.rows.map((row) => row.name), ["ada", "cy"]);
    assert.equal(onDuty.rowCount, 2);
    const listed = await client.query(`SELECT name FROM things WHERE ${client.dialect.inList("name")} ORDER BY name`, [["bob", "cy", "nobody"]]);
    assert.deepEqual(listed.rows.map((row) => row.name), ["bob", "cy"]);
    assert.equal((await client.query(`SELECT name FROM things WHERE ${client.dialect.inList("name")}`, [[]])).rowCount, 0);
    assert.equal((await client.query("UPDATE things SET n = n + 1 WHERE id <> ?", [2])).rowCount, 2);
    assert.equal((await client.query("UPDATE things SET n = 1 WHERE id = ?", [99])).rowCount, 0);
    assert.equal((await client.query("INSERT INTO things (id, name, on_duty) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [4, "ada", false])).rowCount, 0);
    await assert.rejects(client.query("INSERT INTO things (id, name, on_duty) VALUES (?, ?, ?)", [5, "ada", false]), (error) => client.dialect.isUniqueViolation(error));
  });

  test("sql client: a transaction that throws leaves nothing behind; a query issued meanwhile is not part of it", async () => {
    const client = await withTable(await backend.client());
    const failing = client.transaction(async (tx) => {
      await tx.query("INSERT INTO things (id, name, on_duty) VALUES (?, ?, ?)", [1, "inside", true]);
      await tx.query("SELECT count(*) AS n FROM things");
      await tx.query("UPDATE things SET n = 5 WHERE id = ?", [1]);
      throw new Error("changed my mind");
    });
    // Issued while the transaction is open: on SQLite's one connection it must wait, not join (and roll back with) it.
    const outside = client.query("INSERT INTO things (id, name, on_duty) VALUES (?, ?, ?)", [2, "outside", false]);
    await assert.rejects(failing, /changed my mind/);
    await outside;
    const { rows } = await client.query("SELECT name FROM things ORDER BY id");
    assert.deepEqual(rows.map((row) => row.name), ["outside"]);
  });

  test("sql client: concurrent read-then-write transactions never interleave (no lost update)", async () => {
    const client = await withTable(await backend.client());
    await client.query("INSERT INTO things (id, name, on_duty) VALUES (?, ?, ?)", [1, "counter", false]);
    const lock = client.dialect.lockRows("FOR UPDATE");
    const increment = () =>
      client.transaction(async (tx) => {
        const [row] = (await tx.query(`SELECT n FROM things WHERE id = ?${lock}`, [1])).rows;
        await tx.query("SELECT 1"); // more awaits between the read and the write
        await tx.query("UPDATE things SET n = ? WHERE id = ?", [Number(row!.n) + 1, 1]);
        return Number(row!.n);
      });
    const seen = await Promise.all(Array.from({ length: 20 }, increment));
    assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: 20 }, (_, index) => index));
    assert.equal(Number((await client.query("SELECT n FROM things WHERE id = ?", [1])).rows[0]!.n), 20);
  });

  test("sql client: a transaction's handle refuses queries once it has ended", async () => {
    const client = await withTable(await backend.client());
    let leaked: Parameters<Parameters<SqlClient["transaction"]>[0]>[0] | undefined;
    await client.transaction(async (tx) => {
      leaked = tx;
      await tx.query("SELECT 1");
    });
    await assert.rejects(leaked!.query("SELECT 1"));
  });

  test("closing the store lets a transaction already under way finish", async () => {
    const { store, another } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const saving = store.createUserTool(ada.id, toolInput());
    const closing = store.close();
    const saved = await saving;
    await closing;
    await assert.rejects(store.getUser(ada.id)); // closed means closed
    assert.equal((await (await another()).getUserTool(saved.id))?.version, 1);
  });
});

test("sqlite (in memory): closing the store lets a transaction already under way finish", async () => {
  const store = await createSqliteStore({ path: ":memory:" });
  const ada = await store.createUser({ name: "ada", isAdmin: false });
  const saving = store.createUserTool(ada.id, toolInput());
  const closing = store.close();
  assert.equal((await saving).version, 1);
  await closing;
});
