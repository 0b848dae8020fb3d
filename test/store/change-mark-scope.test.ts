/**
 * The SQLite change mark reads data_version once per request and turn of the event loop
 * (sqlite-driver.ts): another connection's commit is seen by the next request at once, and by the
 * same request from its next turn; this connection's writes move the mark at once; inside a
 * transaction, and outside any request, it is always read afresh.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { openDatabase } from "../../src/store/sqlite/sqlite-driver.ts";
import { tempDir } from "../helpers/fixtures.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function setUp() {
  const path = join(tempDir(), "mark.db");
  let scope: object | undefined;
  const db = openDatabase(path, "full", () => scope);
  db.exec("CREATE TABLE t (n INTEGER)");
  const other = new DatabaseSync(path);
  const otherCommits = () => other.prepare("INSERT INTO t (n) VALUES (1)").run();
  return { db, otherCommits, enter: (next: object | undefined) => (scope = next), close: () => (other.close(), db.close()) };
}

test("within one request and turn data_version is read once; the next request reads it afresh", async () => {
  const { db, otherCommits, enter, close } = setUp();
  try {
    await nextTurn();
    const request = {};
    enter(request);
    const first = db.changeMark();
    otherCommits();
    assert.equal(db.changeMark(), first, "read once within the request and turn");
    enter({});
    const next = db.changeMark();
    assert.notEqual(next, first, "another request in the same turn sees the commit");
    enter(request);
    await nextTurn();
    assert.notEqual(db.changeMark(), first, "the same request sees it from its next turn");
  } finally {
    close();
  }
});

test("this connection's writes move the mark at once, within a request and turn too", async () => {
  const { db, enter, close } = setUp();
  try {
    enter({});
    const before = db.changeMark();
    db.run("INSERT INTO t (n) VALUES (2)");
    assert.notEqual(db.changeMark(), before);
  } finally {
    close();
  }
});

test("inside a transaction, and outside any request, data_version is read afresh", async () => {
  const { db, otherCommits, enter, close } = setUp();
  try {
    enter(undefined);
    const outside = db.changeMark();
    otherCommits();
    assert.notEqual(db.changeMark(), outside, "outside a request (the CLI, tests, timers)");
    enter({});
    const inRequest = db.changeMark();
    otherCommits();
    // What the audit chain relies on: under the write lock, a commit made before it is seen.
    db.transaction(() => assert.notEqual(db.changeMark().split(":")[0], inRequest.split(":")[0]));
  } finally {
    close();
  }
});
