/**
 * npm test runs every attack test (and the sandbox, tool and event tests) twice, the second time
 * with KNOT_SANDBOX_ISOLATE_REUSE=never (issue 13). That pass proves something only if the mode
 * reaches the sandbox both ways the tests make one: a pool from the sandbox harness and an app from
 * startApp (the tool, MCP, event and HTTP attack tests). This test runs in both passes and checks
 * that it does; "user" is also the default, so the "never" pass is the one that catches a miss.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startApp } from "../helpers/fixtures.ts";
import { ISOLATE_REUSE } from "../helpers/isolate-mode.ts";
import { assertOk, createReadyPool, runTool } from "./harness.ts";

const reusedAsTheModeSays = (reused: number) =>
  ISOLATE_REUSE === "user" ? assert.ok(reused > 0, "a user's second run reused their warm isolate") : assert.equal(reused, 0, "no run reused an isolate");

test(`a sandbox harness pool runs in the "${ISOLATE_REUSE}" isolate mode`, async () => {
  const pool = await createReadyPool();
  try {
    for (let i = 0; i < 3; i += 1) assertOk(await runTool(pool, "export default () => 1"));
    reusedAsTheModeSays(pool.stats().reusedIsolates);
  } finally {
    await pool.close();
  }
});

test(`an app from startApp runs user tools in the "${ISOLATE_REUSE}" isolate mode`, async () => {
  const t = await startApp();
  try {
    const user = await t.user("mode-probe");
    const principal = await t.app.auth.principalFor(user.id);
    assert.ok(principal);
    for (let i = 0; i < 3; i += 1) {
      const outcome = await t.app.runner.run(principal, { name: "probe", code: "export default () => 1", language: "js" }, {}, { validated: true });
      assertOk(outcome);
    }
    reusedAsTheModeSays(t.app.sandbox.stats().reusedIsolates);
  } finally {
    await t.close();
  }
});
