/**
 * The server process is killed with SIGKILL in the middle of writes. After a restart the database
 * opens, no acknowledged tool version or audit row is lost, and the audit chain verifies.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { it } from "node:test";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { openStore } from "../../src/store/index.ts";
import { cli, cliDaemon } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS, tempDir } from "../helpers/fixtures.ts";

it("SIGKILL during writes loses nothing that was acknowledged", async () => {
  const dir = tempDir();
  const db = path.join(dir, "kill.db");
  assert.equal(cli(["users", "add", "writer", "--db", db]).code, 0);
  assert.equal(cli(["grant", "writer", "knot.tools.author", "--db", db]).code, 0);
  assert.equal(cli(["grant", "writer", "plugin.demo.view_dashboard", "--db", db]).code, 0);
  const token = cli(["tokens", "create", "writer", "--db", db]).stdout.trim();
  const server = cliDaemon(["serve", "--port", "0", "--db", db, "--plugins", EXAMPLE_PLUGINS], /listening on (http:\/\/\S+)/, { cwd: dir });
  const url = /listening on (http:\/\/\S+)/.exec(await server.started)![1]!;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  const created = await fetch(`${url}/api/tools`, { method: "POST", headers, body: JSON.stringify({ name: "counter", code: "export default () => 0;" }) });
  const toolId = ((await created.json()) as { tool: { id: string } }).tool.id;
  const acknowledgedVersions = new Set<number>([1]);
  let acknowledgedCalls = 0;
  let stop = false;

  const saver = async () => {
    while (!stop) {
      try {
        const res = await fetch(`${url}/api/tools/${toolId}`, { method: "PUT", headers, body: JSON.stringify({ code: `export default () => ${Math.random()};` }) });
        if (res.status === 200) acknowledgedVersions.add(((await res.json()) as { tool: { version: number } }).tool.version);
      } catch {
        return; // the server is gone
      }
    }
  };
  const caller = async () => {
    while (!stop) {
      try {
        const res = await fetch(`${url}/plugins/demo/echo_word?word=w`, { headers });
        await res.arrayBuffer();
        if (res.status === 200) acknowledgedCalls += 1;
      } catch {
        return;
      }
    }
  };
  const workers = [saver(), saver(), caller(), caller()];
  if (process.env.DEBUG_KILL) setInterval(() => console.error("progress", acknowledgedVersions.size, acknowledgedCalls), 1000).unref();
  const deadline = Date.now() + 60_000;
  while ((acknowledgedVersions.size < 40 || acknowledgedCalls < 40) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(acknowledgedVersions.size >= 40 && acknowledgedCalls >= 40, `writes under way: ${acknowledgedVersions.size} versions, ${acknowledgedCalls} calls`);
  server.child.kill("SIGKILL");
  stop = true;
  await Promise.all(workers);
  await server.stop();

  const store = await openStore({ path: db });
  try {
    const versions = new Set((await store.listUserToolVersions(toolId)).map((v) => v.version));
    for (const v of acknowledgedVersions) assert.ok(versions.has(v), `acknowledged version ${v} must survive`);
    const verified = await verifyAuditChain(store.iterateAudit());
    assert.equal(verified.ok, true, JSON.stringify(verified));
    const calls = (await store.queryAudit({ tool: "demo/echo_word", limit: 1000 })).filter((r) => r.outcome === "ok");
    assert.ok(calls.length >= acknowledgedCalls, `${calls.length} audited calls ≥ ${acknowledgedCalls} acknowledged`);
  } finally {
    await store.close();
  }
  const verify = cli(["audit", "verify", "--db", db]);
  assert.equal(verify.code, 0, verify.stderr + verify.stdout);
});
