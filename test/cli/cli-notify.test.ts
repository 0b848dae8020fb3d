/**
 * The CLI changes grants, memberships and tools through the admin layer (src/admin), as the web
 * admin does, so MCP clients hear of them: a `grant`/`revoke`/`tools add` run as a separate process
 * against the PostgreSQL database of a running server makes that server send
 * `notifications/tools/list_changed` (the change bus, LISTEN/NOTIFY), and the new listing follows.
 * On SQLite the change bus is local to one process in this branch: there the CLI's part is the
 * outbox rows (test/cli/cli-events.test.ts), and the in-process test below shows the admin layer
 * notifying exactly as the web routes do.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { adminOf } from "../../src/admin/admin.ts";
import { cli } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { sharedPostgres } from "../helpers/postgres.ts";
import { connect, toolNames } from "../mcp/helpers.ts";

const cluster = sharedPostgres();

/** A connected client that counts list_changed notifications. */
async function watchedClient(url: string, token: string) {
  const { client } = await connect(url, token);
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  // A first listing, as an assistant does: the session is up (and its notification stream opening) before anything changes.
  await toolNames(client);
  return {
    client,
    count: () => changed,
    async next(seen: number, what: string) {
      for (let i = 0; i < 750 && changed === seen; i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(changed > seen, `${what}: no tools/list_changed within 15 s`);
      return changed;
    },
  };
}

describe("a CLI change reaches the MCP clients of a server on the same PostgreSQL database", () => {
  let t: TestApp;
  let db = "";
  const dir = tempDir();
  const run = (...args: string[]) => {
    const res = cli([...args, "--db", db, "--plugins", EXAMPLE_PLUGINS], { cwd: dir });
    assert.equal(res.code, 0, `${args.join(" ")}: ${res.stderr}`);
    return res.stdout.trim();
  };

  before(async () => {
    db = await (await cluster()).createSchema();
    t = await startApp({ config: { database: db } });
  });
  after(() => t?.close());

  it("grant, revoke and tools add by the CLI each send list_changed, and the listing follows", async () => {
    const viewer = await t.userWithToken("viewer", { grants: ["knot.mcp", "knot.tools.author"] });
    const watched = await watchedClient(t.url, viewer.token);
    try {
      assert.ok(!(await toolNames(watched.client)).includes("export_metrics"));
      run("grant", "viewer", "plugin.metrics.export");
      let seen = await watched.next(0, "grant");
      assert.ok((await toolNames(watched.client)).includes("export_metrics"));

      run("revoke", "viewer", "plugin.metrics.export");
      seen = await watched.next(seen, "revoke");
      assert.ok(!(await toolNames(watched.client)).includes("export_metrics"));

      const file = path.join(dir, "from_cli.js");
      fs.writeFileSync(file, "export default () => 'hi';\n");
      run("tools", "add", file, "--user", "viewer");
      await watched.next(seen, "tools add");
      assert.ok((await toolNames(watched.client)).includes("from_cli"));
    } finally {
      await watched.client.close();
    }
  });

  it("a CLI grant to a group notifies everyone (a group's members are not looked up)", async () => {
    const member = await t.userWithToken("member", { grants: ["knot.mcp"], groups: ["ops"] });
    const watched = await watchedClient(t.url, member.token);
    try {
      run("grant", "@ops", "plugin.metrics.export");
      await watched.next(0, "group grant");
      assert.ok((await toolNames(watched.client)).includes("export_metrics"));
    } finally {
      await watched.client.close();
    }
  });
});

describe("the admin layer notifies like the web admin (SQLite, in process)", () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it("grant, revoke, group and admin-flag changes through src/admin send list_changed; a missing grant sends nothing", async () => {
    const admin = adminOf(t.app);
    const viewer = await t.userWithToken("viewer", { grants: ["knot.mcp"] });
    const watched = await watchedClient(t.url, viewer.token);
    const subject = { kind: "user", userId: viewer.user.id } as const;
    try {
      await admin.grants.grant(subject, "plugin.metrics.export", null);
      let seen = await watched.next(0, "grant");
      assert.ok((await toolNames(watched.client)).includes("export_metrics"));
      assert.equal(await admin.grants.revoke(subject, "plugin.metrics.export", null), true);
      seen = await watched.next(seen, "revoke");
      assert.equal(await admin.grants.revoke(subject, "plugin.metrics.export", null), false);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(watched.count(), seen, "a revoke that changed nothing announces nothing");
      await admin.users.setGroups(viewer.user.id, ["ops"]);
      seen = await watched.next(seen, "groups");
      // An admin holds every permission: the flag changes what the user's assistants see.
      await admin.users.setAdmin(null, viewer.user.id, true);
      await watched.next(seen, "admin flag");
      assert.ok((await toolNames(watched.client)).includes("export_metrics"));
    } finally {
      await watched.client.close();
    }
  });

  it("refuses bad names with INVALID_ARGUMENT naming the field, before anything changes", async () => {
    const admin = adminOf(t.app);
    const before = (await t.app.store.listUsers()).length;
    await assert.rejects(admin.users.create({ name: "bad name!" }), { code: "INVALID_ARGUMENT" });
    await assert.rejects(admin.users.create({ name: "okname", groups: ["Ops"] }), (e: { code?: string; detail?: { where?: string } }) => e.code === "INVALID_ARGUMENT" && e.detail?.where === "groups");
    assert.equal((await t.app.store.listUsers()).length, before);
    await assert.rejects(admin.grants.grant({ kind: "group", group: "ops" }, "Not A Permission", null), { code: "INVALID_ARGUMENT" });
  });
});
