/**
 * The audit log of MCP calls: one row per call (refusals included) with client, token, outcome,
 * duration and summary; secret and personal arguments masked by a keyed hash; GET /api/audit;
 * retention; and `knot-tools audit verify` failing after a row is altered.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startAuditRetention } from "../../src/audit/audit-retention.ts";
import { hashSecret } from "../../src/auth/secrets.ts";
import { silentLogger } from "../../src/log.ts";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { cli } from "../helpers/cli.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, saveUserTool, writeMcpPlugins } from "./helpers.ts";

const SECRET_TOOL = `import { getString, returnObject } from "knot:tool";\nexport default function () { returnObject({ ok: getString("apiKey").length > 0, summary: "key checked" }); }`;

describe("MCP audit log", () => {
  let t: TestApp;
  let client: Client;
  let adminToken: string;
  let aliceToken: string;
  let aliceId: string;
  let closed = false;
  const db = () => path.join(t.dir, "knot.db");

  before(async () => {
    const plugins = writeMcpPlugins();
    t = await startApp({ pluginsDir: plugins.dir, config: { plugins: { tools: { marker: plugins.marker } } } });
    adminToken = (await t.userWithToken("admin", { admin: true })).token;
    const alice = await t.userWithToken("alice", { grants: ["knot.mcp"] });
    aliceToken = alice.token;
    aliceId = alice.user.id;
    await saveUserTool(t, aliceId, { name: "check_key", code: SECRET_TOOL, parameters: [{ name: "apiKey", type: "string", secret: true, required: true }] });
    client = (await connect(t.url, aliceToken, "audit-client")).client;
  });
  after(async () => {
    if (!closed) {
      await client.close();
      await t.close();
    }
  });

  test("every call is one row: ok, tool error, bad arguments, hidden and unknown tools", async () => {
    await client.callTool({ name: "login", arguments: { email: "alice@example.com", password: "hunter2" } });
    await client.callTool({ name: "login", arguments: { email: "alice@example.com", password: "other-password" } });
    await client.callTool({ name: "check_key", arguments: { apiKey: "sk-live-123" } });
    await client.callTool({ name: "kaboom", arguments: {} });
    assert.equal((await client.callTool({ name: "login", arguments: { email: "x@example.com" } })).isError, true);
    await assert.rejects(client.callTool({ name: "ops_report", arguments: { password: "p" } }));
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }));

    const rows = (await t.app.store.queryAudit({ userId: aliceId, limit: 20 })).reverse();
    assert.deepEqual(rows.map((r) => [r.tool, r.outcome]), [
      ["login", "ok"], ["login", "ok"], ["user:alice/check_key", "ok"], ["kaboom", "HANDLER_FAILED"],
      ["login", "INVALID_ARGUMENT"], ["ops_report", "PERMISSION_DENIED"], ["nope", "UNKNOWN_TOOL"],
    ]);
    const tokenId = (await t.app.store.findTokenByHash(hashSecret(aliceToken)))!.id;
    for (const row of rows) {
      assert.equal(row.surface, "mcp");
      assert.equal(row.client, "audit-client/9.8.7");
      assert.equal(row.tokenId, tokenId);
      assert.ok(row.durationMs >= 0);
      assert.ok(row.requestId);
    }
    assert.equal(rows[0]!.summary, "logged in alice");
    assert.equal(rows[2]!.summary, "key checked");
  });

  test("secret and personal values are masked with a keyed hash: equal values correlate, raw values are never stored", async () => {
    const rows = (await t.app.store.queryAudit({ userId: aliceId, limit: 20 })).reverse();
    const [first, second, key, , invalid, hidden] = rows.map((r) => r.args as Record<string, string>);
    assert.match(first!.password!, /^masked:/);
    assert.match(first!.email!, /^masked:/);
    assert.equal(first!.email, second!.email, "the same email masks the same way");
    assert.notEqual(first!.password, second!.password);
    assert.match(key!.apiKey!, /^masked:/);
    assert.match(invalid!.email!, /^masked:/, "masked on refused calls too");
    assert.match(hidden!.password!, /^masked:/);
    // The audit journals beside the database, where rows wait before the chain (closing deletes them).
    const journalFolder = db() + "-audit";
    const journaled = fs.readdirSync(journalFolder).map((name) => fs.readFileSync(`${journalFolder}/${name}`, "latin1")).join("");
    assert.match(journaled, /masked:/, "the journal holds the rows as the chain will");
    // Closed, so that everything written is in the files read below.
    closed = true;
    await client.close();
    await t.close();
    const stored = journaled + ["", "-wal"].map((suffix) => (fs.existsSync(db() + suffix) ? fs.readFileSync(db() + suffix).toString("latin1") : "")).join("");
    for (const raw of ["hunter2", "other-password", "sk-live-123", "alice@example.com"]) assert.ok(!stored.includes(raw), `${raw} is not in the database`);
  });

  test("knot-tools audit verify: exit 0 when intact, 1 naming the first altered row", async () => {
    const ok = cli(["audit", "verify", "--db", db()]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /intact: \d+ rows/);
    const sql = new DatabaseSync(db());
    const seq = Number((sql.prepare("SELECT seq FROM audit WHERE tool = 'kaboom'").get() as { seq: number }).seq);
    sql.exec("DROP TRIGGER audit_append_only");
    sql.prepare("UPDATE audit SET outcome = 'ok' WHERE seq = ?").run(seq);
    sql.close();
    const broken = cli(["audit", "verify", "--db", db()]);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, new RegExp(`row ${seq}\\b`));
  });
});

describe("GET /api/audit and retention", () => {
  let t: TestApp;
  let admin: string;
  let plain: string;
  let aliceId: string;
  before(async () => {
    t = await startApp();
    admin = (await t.userWithToken("admin", { admin: true })).token;
    const alice = await t.userWithToken("alice", { grants: ["knot.mcp"] });
    plain = alice.token;
    aliceId = alice.user.id;
    const { client } = await connect(t.url, alice.token);
    for (const word of ["a", "b", "c", "d", "e"]) await client.callTool({ name: "echo_word", arguments: { word } });
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }));
    await client.close();
  });
  after(() => t.close());

  test("filters by user, tool and outcome, pages with before/limit, and is for admins only", async () => {
    const byUser = await request(`${t.url}/api/audit?user=alice&tool=echo_word&outcome=ok&limit=2`, admin);
    assert.equal(byUser.status, 200);
    assert.equal(byUser.body.entries.length, 2);
    assert.ok(byUser.body.entries.every((e: any) => e.userId === aliceId && e.tool === "echo_word"));
    assert.deepEqual(byUser.body.entries.map((e: any) => e.args.word), ["e", "d"], "newest first");
    const next = await request(`${t.url}/api/audit?user=alice&tool=echo_word&limit=2&before=${byUser.body.next}`, admin);
    assert.deepEqual(next.body.entries.map((e: any) => e.args.word), ["c", "b"]);
    const unknown = await request(`${t.url}/api/audit?outcome=UNKNOWN_TOOL`, admin);
    assert.deepEqual(unknown.body.entries.map((e: any) => e.tool), ["nope"]);
    assert.equal(unknown.body.next, null);
    const future = await request(`${t.url}/api/audit?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, admin);
    assert.deepEqual(future.body.entries, []);
    assert.equal((await request(`${t.url}/api/audit?until=2000-01-01`, admin)).body.entries.length, 0);
    assert.equal((await request(`${t.url}/api/audit?before=zero`, admin)).body.code, "BAD_REQUEST");
    assert.equal((await request(`${t.url}/api/audit`, plain)).status, 403);
  });

  test("retention prunes rows older than the configured days and the rest still verifies", async () => {
    const total = (await t.app.store.queryAudit({ limit: 1000 })).length;
    assert.ok(total >= 6);
    const keep = startAuditRetention(t.app.store, 0, silentLogger);
    assert.equal(await keep.prune(), 0, "0 days keeps everything");
    keep.stop();
    const retention = startAuditRetention(t.app.store, 1, silentLogger, () => Date.now() + 2 * 86_400_000);
    assert.equal(await retention.prune(), total);
    retention.stop();
    assert.equal((await t.app.store.queryAudit({})).length, 0);
    const { client } = await connect(t.url, plain);
    await client.callTool({ name: "echo_word", arguments: { word: "after" } });
    await client.close();
    const verdict = await verifyAuditChain(t.app.store.iterateAudit());
    assert.deepEqual(verdict, { ok: true, rows: 1 });
  });
});
