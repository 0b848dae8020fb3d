/**
 * Tool-list changes across instances survive a dropped LISTEN connection: notifications sent while
 * it was down are lost, so once it listens again every local client is told its list may have
 * changed, and a change this instance could not publish meanwhile is published to everyone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../../src/log.ts";
import { createChangeBus } from "../../src/mcp/change-bus.ts";
import { openPgDb } from "../../src/store/postgres/pg-driver.ts";
import { waitFor } from "../helpers/peers.ts";
import { startPostgres } from "../helpers/postgres.ts";

test("an instance whose LISTEN connection dropped tells its own clients once back, and publishes what it could not send", async () => {
  const cluster = await startPostgres();
  const heard = { a: [] as Array<readonly string[] | undefined>, b: [] as Array<readonly string[] | undefined> };
  const a = await createChangeBus(cluster.url(), (users) => heard.a.push(users), silentLogger);
  const b = await createChangeBus(cluster.url(), (users) => heard.b.push(users), silentLogger);
  const admin = openPgDb({ url: cluster.url() });
  try {
    // a's listening connection is the older of the two.
    const ended = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'knot-tools-listen' ORDER BY backend_start LIMIT 1");
    assert.equal(ended.rowCount, 1);
    await new Promise((resolve) => setTimeout(resolve, 150)); // a notices; its first retry is 0.5 s away
    a.publish(["u-ada"]); // not sent: a's connection is down
    await waitFor(() => heard.a.length >= 1 && heard.b.length >= 1, 10_000, "both instances to hear of the change");
    assert.deepEqual(heard.a, [undefined], "a told its own clients (everyone) once it listened again");
    assert.deepEqual(heard.b, [undefined], "b heard a's unsent change, as a change for everyone");
  } finally {
    await admin.close();
    await Promise.all([a.close(), b.close()]);
    await cluster.stop();
  }
});
