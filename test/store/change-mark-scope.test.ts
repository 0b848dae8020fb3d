/**
 * The SQLite change mark reads data_version once per request and turn of the event loop
 * (sqlite-driver.ts): another connection's commit is seen by the next request at once, and by the
 * same request from its next turn (or once its memo is VERSION_MEMO_MS old); this connection's writes move the mark at once; inside a
 * transaction, and outside any request, it is always read afresh.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { openDatabase, VERSION_MEMO_MS } from "../../src/store/sqlite/sqlite-driver.ts";
import { tempDir } from "../helpers/fixtures.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function setUp() {
  const path = join(tempDir(), "mark.db");
  let scope: object | undefined;
  // The memo's age is read off this clock: time moves only when a test moves it.
  let now = 0;
  const db = openDatabase(path, "full", () => scope, () => now);
  db.exec("CREATE TABLE t (n INTEGER)");
  const other = new DatabaseSync(path);
  const otherCommits = () => other.prepare("INSERT INTO t (n) VALUES (1)").run();
  return { db, otherCommits, enter: (next: object | undefined) => (scope = next), age: (ms: number) => (now += ms), close: () => (other.close(), db.close()) };
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

test("a read in a check phase is not reused once its memo is VERSION_MEMO_MS old, in the next iteration's timers", async () => {
  const { db, otherCommits, enter, age, close } = setUp();
  try {
    const request = {};
    enter(request);
    // Read first inside a setImmediate callback: its own forgetting is queued for the NEXT check phase.
    const [first, later] = await new Promise<[string, string]>((resolve) => setImmediate(() => {
      const mark = db.changeMark();
      otherCommits();
      assert.equal(db.changeMark(), mark, "reused within the turn while young");
      age(VERSION_MEMO_MS);
      setTimeout(() => resolve([mark, db.changeMark()]), 0);
      // Real time too, so the timer is due in the next iteration's timers phase, before its check phase.
      const until = performance.now() + 3;
      while (performance.now() < until) {
        // busy
      }
    }));
    assert.notEqual(later, first, "the timer of the next iteration reads data_version afresh");
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
