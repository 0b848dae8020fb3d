/**
 * `knot-tools run` is a one-shot command on the server's database: it stores the events its run
 * causes but leaves the sinks' outbox to the server. It used to start a dispatcher of its own,
 * which claimed other users' due deliveries (and then waited for them before it exited).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { parseUserToolInput } from "../../src/tools/user-tool-input.ts";
import { cli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/fixtures.ts";

test("knot-tools run claims no sink delivery", async () => {
  const dir = tempDir();
  const db = path.join(dir, "knot.db");
  const store = await createSqliteStore({ path: db });
  let sinkId: string;
  try {
    const owner = await store.createUser({ name: "owner", isAdmin: false });
    await store.createUser({ name: "runner", isAdmin: false });
    const sink = await store.createUserTool(owner.id, parseUserToolInput({ name: "watch", kind: "sink", events: ["tool.saved"], code: "export default () => {};\n" }));
    sinkId = sink.id;
    await store.appendEvent({ id: "due", type: "tool.saved", at: new Date(Date.now() - 60_000).toISOString(), data: {} }, [sink.id]);
  } finally {
    await store.close();
  }
  // Long enough (~1.5 s) for a dispatcher's first poll (0.5 s) to have claimed the due delivery.
  const tool = path.join(dir, "spin.js");
  fs.writeFileSync(tool, "export default () => { const end = Date.now() + 1500; while (Date.now() < end) {} return 'spun'; };\n");
  const ran = cli(["run", tool, "--user", "runner", "--db", db], { cwd: dir });
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /spun/);
  const after = await createSqliteStore({ path: db });
  try {
    const [row] = await after.listDeliveries(sinkId!, 10);
    assert.deepEqual([row?.status, row?.attempts], ["pending", 0], "the run command delivered (or tried) a sink's event");
  } finally {
    await after.close();
  }
});
