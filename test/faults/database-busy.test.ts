/**
 * Fault: the database is busy — another connection (a second process such as the CLI, played here
 * by a worker thread with its own DatabaseSync) holds the SQLite write lock for a while. Requests
 * that write (saving a tool, audited plugin calls over HTTP and MCP) wait up to busy_timeout and
 * complete once the lock is released; nothing is lost, neither their writes nor the other
 * connection's, and the audit chain still verifies.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { Worker } from "node:worker_threads";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect } from "../mcp/helpers.ts";

const HOLD_MS = 1_500;

// Runs on its own thread: the server's (synchronous) SQLite calls block the main thread while they wait.
const LOCK_HOLDER = `
const { parentPort, workerData } = require("node:worker_threads");
const { DatabaseSync } = require("node:sqlite");
const db = new DatabaseSync(workerData.file, { timeout: 5000 });
db.exec("BEGIN IMMEDIATE");
db.prepare("INSERT INTO settings (name, value) VALUES (?, ?)").run("faults.lock_holder", "was here");
parentPort.postMessage("locked");
setTimeout(() => { db.exec("COMMIT"); db.close(); parentPort.postMessage("released"); }, workerData.holdMs);
`;

let t: TestApp;
let token: string;
let client: Client;

before(async () => {
  t = await startApp();
  token = (await t.userWithToken("erin", { grants: ["knot.mcp", "knot.tools.author", "plugin.demo.view_dashboard"] })).token;
  client = (await connect(t.url, token)).client;
});
after(async () => {
  await client.close();
  await t.close();
});

it("writes made while another connection holds the write lock wait for it, then succeed; nothing is lost", async () => {
  const holder = new Worker(LOCK_HOLDER, { eval: true, workerData: { file: t.app.config.database, holdMs: HOLD_MS } });
  const released = new Promise((resolve, reject) => {
    holder.on("message", (m) => m === "released" && resolve(m));
    holder.once("error", reject);
  });
  await new Promise((resolve, reject) => {
    holder.once("message", resolve);
    holder.once("error", reject);
  });
  const started = performance.now();
  const since = () => performance.now() - started;

  const [saved, http, mcp] = await Promise.all([
    request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "busy_saved", code: "export default () => 'saved';" }) }).then((r) => ({ ...r, at: since() })),
    request(`${t.url}/plugins/demo/echo_word?word=busy`, token).then((r) => ({ ...r, at: since() })),
    client.callTool({ name: "echo_word", arguments: { word: "mcp-busy" } }).then((r) => ({ result: r, at: since() })),
  ]);
  await released;
  await holder.terminate();

  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  assert.equal(http.status, 200, JSON.stringify(http.body));
  assert.equal(http.body.word, "busy");
  assert.equal(mcp.result.isError, undefined, JSON.stringify(mcp.result));
  // Each waited for the lock (it was taken before `started` and held HOLD_MS).
  for (const [what, at] of [["save", saved.at], ["http", http.at], ["mcp", mcp.at]] as const) {
    assert.ok(at >= HOLD_MS - 300, `${what} answered after ${at.toFixed(0)} ms, before the lock was released`);
  }

  const tool = await t.app.store.getUserTool(saved.body.tool.id);
  assert.equal(tool?.name, "busy_saved");
  assert.deepEqual((await t.app.store.queryAudit({ tool: "demo/echo_word" })).map((r) => [r.surface, r.outcome]), [["http", "ok"]]);
  assert.deepEqual((await t.app.store.queryAudit({ tool: "echo_word" })).map((r) => [r.surface, r.outcome]), [["mcp", "ok"]]);
  assert.equal(await t.app.store.getOrCreateSetting("faults.lock_holder", () => "lost"), "was here", "the other connection's write survived");
  const chain = await verifyAuditChain(t.app.store.iterateAudit());
  assert.equal(chain.ok, true, JSON.stringify(chain));

  // And the server is back to normal speed.
  const quick = performance.now();
  assert.equal((await request(`${t.url}/plugins/demo/echo_word?word=after`, token)).status, 200);
  assert.ok(performance.now() - quick < HOLD_MS, "no lock is held any more");
});
