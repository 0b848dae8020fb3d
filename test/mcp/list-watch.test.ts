/**
 * The stdio list watch (src/mcp/list-watch.ts) against a change mark and a list under the test's
 * control: a move is told once, a move that changes nothing this user sees tells nothing, and a
 * comparison that fails (the store busy) is retried at the next poll instead of being forgotten.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../../src/log.ts";
import { watchToolList } from "../../src/mcp/list-watch.ts";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("the list watch tells a change once, nothing for a move it cannot see, and retries a failed comparison", async () => {
  let mark = 1;
  let list = "a";
  let failNext = false;
  let told = 0;
  const watch = await watchToolList({
    changeMark: () => String(mark),
    fingerprint: async () => {
      if (failNext) {
        failNext = false;
        throw new Error("database is locked");
      }
      return list;
    },
    changed: () => (told += 1),
    logger: silentLogger,
    intervalMs: 5,
  });
  try {
    mark = 2; // a write that changes nothing this user lists
    await tick(40);
    assert.equal(told, 0);
    mark = 3;
    list = "a,b";
    await tick(40);
    assert.equal(told, 1, "the change was not told once");
    // The comparison after this move fails once; the change must still be told.
    failNext = true;
    mark = 4;
    list = "a";
    await tick(60);
    assert.equal(told, 2, "a change whose comparison failed once was never told");
  } finally {
    watch.stop();
  }
});
