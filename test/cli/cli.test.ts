import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openStore } from "../../src/store/index.ts";
import { BIN, cli, cliDaemon } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS, manifest, request, tempDir, writePlugin } from "../helpers/fixtures.ts";

describe("knot-tools CLI", () => {
  const dir = tempDir();
  const db = path.join(dir, "cli.db");
  const run = (...args: string[]) => cli([...args, "--db", db], { cwd: dir });

  it("users add / list, with --admin and --groups", () => {
    const added = run("users", "add", "alice", "--groups", "ops,platform");
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout.trim(), /^[0-9a-f-]{36}$/);
    assert.equal(run("users", "add", "boss", "--admin").code, 0);
    const list = run("users", "list");
    assert.equal(list.code, 0);
    assert.match(list.stdout, /^alice\t[0-9a-f-]+\tuser\tops,platform$/m);
    assert.match(list.stdout, /^boss\t[0-9a-f-]+\tadmin\t$/m);
  });

  it("errors are one clear line and a non-zero exit, never a stack trace", () => {
    for (const args of [["users", "add", "alice"], ["users", "add", "bad name!"], ["grant", "nobody", "plugin.demo.view"], ["grant", "alice", "Not A Permission"], ["tokens", "create", "ghost"], ["tokens", "create", "alice", "--expires", "soon"], ["tokens", "create", "alice", "--expires", "3000000d"], ["tokens", "create", "alice", "--expires", "999999999d"], ["tokens", "create", "alice", "--name", "web session"], ["users", "add", "carol", "--groups", "Ops"], ["users", "frobnicate"], ["users", "list", "--bogus"]]) {
      const res = run(...args);
      assert.equal(res.code, 1, args.join(" "));
      assert.equal(res.stderr.trim().split("\n").length, 1, `${args.join(" ")}: ${res.stderr}`);
      assert.doesNotMatch(res.stderr, /\bat .*:\d+:\d+/);
    }
    const unknown = run("nonsense");
    assert.notEqual(unknown.code, 0);
  });

  it("tools add --kind sink --events saves a sink; an unknown event type is refused naming it", async () => {
    const file = path.join(dir, "watch.js");
    fs.writeFileSync(file, "export default (event) => console.log(event.type);\n");
    const ok = run("tools", "add", file, "--user", "alice", "--kind", "sink", "--events", "tool.saved, tool.run");
    assert.equal(ok.code, 0, ok.stderr);
    const store = await openStore({ path: db });
    try {
      const sink = await store.getUserTool(ok.stdout.trim());
      assert.deepEqual([sink?.kind, sink?.events], ["sink", ["tool.saved", "tool.run"]]);
    } finally {
      await store.close();
    }
    const bad = run("tools", "add", file, "--user", "alice", "--name", "bad", "--kind", "sink", "--events", "tool.saved,nope.event", "--plugins", EXAMPLE_PLUGINS);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unknown event type "nope\.event"/);
  });

  it("grant / revoke for users and @groups", async () => {
    assert.equal(run("grant", "alice", "plugin.demo.view_dashboard").code, 0);
    assert.equal(run("grant", "@ops", "plugin.metrics.export").code, 0);
    assert.equal(run("revoke", "alice", "plugin.demo.view_dashboard").code, 0);
    const again = run("revoke", "alice", "plugin.demo.view_dashboard");
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no grant/);
  });

  describe("tokens and serve", () => {
    let token = "";
    let server: ReturnType<typeof cliDaemon>;
    let url = "";
    before(async () => {
      const created = run("tokens", "create", "alice", "--name", "laptop", "--expires", "30d");
      assert.equal(created.code, 0, created.stderr);
      token = created.stdout.trim();
      assert.match(token, /^kt_[A-Za-z0-9_-]{40,}$/, "only the token is printed on stdout");
      server = cliDaemon(["serve", "--port", "0", "--db", db, "--plugins", EXAMPLE_PLUGINS], /listening on (http:\/\/\S+)/, { cwd: dir });
      const out = await server.started;
      url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    });
    after(() => server.stop());

    it("serve answers as the token's user, with group grants applied", async () => {
      const me = await request(`${url}/api/me`, token);
      assert.equal(me.body.name, "alice");
      assert.deepEqual(me.body.permissions, ["plugin.metrics.export"]);
      const exported = await request(`${url}/plugins/metrics/export_all?range=2h`, token);
      assert.equal(exported.status, 200);
      assert.equal(exported.body.rows.length, 2);
    });

    it("serve does not create another admin on a database that has users", () => {
      assert.doesNotMatch(server.output().stdout, /created user "admin"/);
    });

    it("tokens list and revoke", async () => {
      const list = run("tokens", "list", "alice");
      const id = list.stdout.split("\t")[0]!;
      assert.match(list.stdout, /\tlaptop\tactive\t\*/);
      assert.equal(run("tokens", "revoke", id).code, 0);
      assert.equal((await request(`${url}/api/me`, token)).status, 401);
      assert.match(run("tokens", "list").stdout, /\trevoked\t/);
    });

    it("revoking an OAuth connection from the CLI is audited, as it is from the API", async () => {
      const store = await openStore({ path: db });
      let id: string;
      try {
        const alice = (await store.getUserByName("alice"))!;
        id = (await store.createToken({ userId: alice.id, name: "Assistant", secretHash: "c".repeat(64), scopes: null, expiresAt: null, connection: { clientId: "client-1", clientName: "Assistant", grantId: "grant-1" } })).id;
      } finally {
        await store.close();
      }
      assert.equal(run("tokens", "revoke", id).code, 0);
      const check = await openStore({ path: db });
      try {
        const [row] = await check.queryAudit({ tool: "oauth.revoke" });
        assert.equal(row?.surface, "cli");
        assert.deepEqual(row?.args, { clientId: "client-1", connectionId: id });
      } finally {
        await check.close();
      }
    });

    it("tokens create --scopes records scopes", () => {
      const scoped = run("tokens", "create", "alice", "--scopes", "plugin.metrics.*", "--no-write");
      assert.equal(scoped.code, 0, scoped.stderr);
      assert.match(run("tokens", "list", "alice").stdout, /plugin\.metrics\.\* \(read-only\)/);
      assert.equal(run("tokens", "create", "alice", "--scopes", "Bad Scope").code, 1);
    });
  });

  it("serve on an empty database creates admin and prints its token once", async () => {
    const fresh = tempDir();
    const daemon = cliDaemon(["serve", "--port", "0"], /API token \(shown once\):\n(kt_\S+)\n/, { cwd: fresh });
    try {
      const out = await daemon.started;
      assert.ok(fs.existsSync(path.join(fresh, "data", "knot-tools.db")), "the default database is ./data/knot-tools.db");
      assert.match(out, /examples\/plugins \(demo, metrics, wordcount\)/, "the bundled examples load when ./plugins does not exist");
      const adminToken = /(kt_\S+)/.exec(out)![1]!;
      const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
      const plugins = await request(`${url}/api/plugins`, adminToken);
      assert.equal(plugins.status, 200);
    } finally {
      assert.equal(await daemon.stop(), 0);
    }
  });

  it("plugins check: exit 0 when all load, else 1 with one line per problem naming plugin, key and line", () => {
    const ok = run("plugins", "check", EXAMPLE_PLUGINS);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /ok demo 1\.0\.0/);
    const bad = tempDir();
    writePlugin(bad, "broken", { "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permisions = ["typo"]
      [[tool.knot.mcp_tools]]
      handler = "x"
    `) });
    const res = run("plugins", "check", bad);
    assert.equal(res.code, 1);
    const lines = res.stderr.trim().split("\n");
    assert.equal(lines.length, 2, res.stderr);
    assert.match(lines[0]!, /^broken: METADATA_INVALID: .*permisions.*line 4/);
    assert.match(lines[1]!, /^broken: METADATA_INVALID: .*description.*line/);
  });

  it("the bin script starts the CLI on Node 24 whatever node launched it", () => {
    const res = spawnSync(process.execPath, [BIN, "users", "list", "--db", db], { encoding: "utf8", cwd: dir });
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /alice/);
  });
});
