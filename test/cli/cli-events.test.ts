/**
 * The CLI's `tools add`, `grant` and `revoke` emit the same events as the API (tool.saved,
 * grant.changed) into the store's outbox, and a server then delivers them to the sinks that may see
 * them: each sink checks the event it gets and throws (a failed delivery) when it is not right.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openStore } from "../../src/store/index.ts";
import { cli, cliDaemon } from "../helpers/cli.ts";
import { request, tempDir } from "../helpers/fixtures.ts";
import { waitFor } from "../helpers/peers.ts";

const ON_SAVE = `import { user } from "knot:identity";
export default (event) => {
  if (user().name !== "alice") throw new Error("runs as " + user().name);
  if (event.type !== "tool.saved" || event.data.by !== "alice" || !["watch", "second"].includes(event.data.name)) throw new Error("unexpected " + JSON.stringify(event));
};\n`;
const ON_GRANT = `import { user } from "knot:identity";
export default (event) => {
  if (user().name !== "boss" || !user().isAdmin) throw new Error("runs as " + user().name);
  const d = event.data;
  if (event.type !== "grant.changed" || !["granted", "revoked"].includes(d.change) || d.subject.kind !== "user" || d.permission !== "plugin.demo.view_dashboard") throw new Error("unexpected " + JSON.stringify(event));
};\n`;

describe("CLI changes emit events like the API", () => {
  const dir = tempDir();
  const plugins = tempDir();
  const db = path.join(dir, "cli.db");
  const run = (...args: string[]) => {
    const res = cli([...args, "--db", db, "--plugins", plugins], { cwd: dir });
    assert.equal(res.code, 0, `${args.join(" ")}: ${res.stderr}`);
    return res.stdout.trim();
  };
  const file = (name: string, code: string) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, code);
    return at;
  };
  let watch = "";
  let grants = "";

  before(() => {
    run("users", "add", "alice");
    run("users", "add", "boss", "--admin");
    watch = run("tools", "add", file("watch.js", ON_SAVE), "--user", "alice", "--kind", "sink", "--events", "tool.saved");
    grants = run("tools", "add", file("grants.js", ON_GRANT), "--user", "boss", "--kind", "sink", "--events", "grant.changed");
    run("tools", "add", file("second.js", "export default () => 2;\n"), "--user", "alice");
    run("grant", "alice", "plugin.demo.view_dashboard");
    run("revoke", "alice", "plugin.demo.view_dashboard");
  });

  it("writes one pending delivery per event to each sink that may see it", async () => {
    const store = await openStore({ path: db });
    try {
      const types = async (id: string) => (await store.listDeliveries(id, 10)).map((d) => `${d.type}:${d.status}`);
      // alice's sink hears its own save and the second tool; not boss's grants sink (not hers).
      assert.deepEqual(await types(watch), ["tool.saved:pending", "tool.saved:pending"]);
      // grant.changed reaches the admin's sink: granted then revoked.
      assert.deepEqual(await types(grants), ["grant.changed:pending", "grant.changed:pending"]);
    } finally {
      await store.close();
    }
  });

  describe("then a server", () => {
    let server: ReturnType<typeof cliDaemon>;
    let url = "";
    let token = "";
    before(async () => {
      token = run("tokens", "create", "boss");
      server = cliDaemon(["serve", "--port", "0", "--db", db, "--plugins", plugins], /listening on (http:\/\/\S+)/, { cwd: dir });
      url = /listening on (http:\/\/\S+)/.exec(await server.started)![1]!;
    });
    after(() => server.stop());

    it("delivers them: each sink got the event it checks, as its owner", async () => {
      const deliveries = async (id: string) => (await request(`${url}/api/sinks/${id}/deliveries`, token)).body.deliveries as Array<{ status: string; lastError: string | null }>;
      for (const id of [watch, grants]) {
        await waitFor(async () => (await deliveries(id)).every((d) => d.status !== "pending"), 30_000, `sink ${id} settled`);
        const got = await deliveries(id);
        assert.deepEqual(got.map((d) => [d.status, d.lastError ?? null]), [["delivered", null], ["delivered", null]]);
      }
    });
  });
});
