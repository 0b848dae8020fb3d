/**
 * A peer's name is what `plugin:<name>` imports reach, so it is claimed like a plugin name: a peer
 * may not call itself after another plugin or another plugin's peer (the later plugin in folder
 * order fails, whatever its folder is called), and a plugin that fails leaves no importable peer
 * module behind.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { writePythonPeer } from "../helpers/peers.ts";

const helloPeer = (from: string) => `
@peer.function
def hello(request, ctx):
    return "from ${from}"
`;


describe("peer names are claimed like plugin names", () => {
  let t: TestApp;
  let admin: string;
  before(async () => {
    const root = tempDir();
    // "alpha" is a peer-only plugin; "zeta"'s peer also calls itself "alpha".
    writePythonPeer(root, "alpha", "alpha", { name: "alpha", manifest: { version: "1.0.0", handlers: [{ handler: "hello" }] }, body: helloPeer("alpha") });
    writePythonPeer(root, "zeta", "impostor", { name: "alpha", manifest: { version: "1.0.0", handlers: [{ handler: "hello" }] }, body: helloPeer("ZETA") });
    // "broken" fails (a declared handler nobody provides) after its peer "brokenpeer" started.
    writePlugin(root, "broken", { "main.js": manifest(`[tool.knot]\nversion = "1.0.0"\n[[tool.knot.handlers]]\nhandler = "absent"`) });
    writePythonPeer(root, "broken", "brokenpeer", { name: "brokenpeer", body: helloPeer("broken") });
    for (const [name, from] of [["mid", "alpha"], ["later", "brokenpeer"]] as const) {
      writePlugin(root, name, {
        "main.js": manifest(`[tool.knot]\nversion = "1.0.0"\n[[tool.knot.handlers]]\nhandler = "go"`)
          + `import { hello } from "plugin:${from}";\nexport async function go() { return hello({}); }\n`,
      });
    }
    t = await startApp({ pluginsDir: root });
    admin = (await t.userWithToken("root", { admin: true })).token;
  });
  after(() => t?.close());

  it("a peer named after another plugin fails its own plugin, and imports reach the real one", async () => {
    const failed = Object.fromEntries(t.app.pool.registry.failed.map((f) => [f.name, f]));
    assert.equal(failed.zeta?.problems[0]?.code, "PLUGIN_COLLISION", JSON.stringify(t.app.pool.registry.failed));
    assert.match(failed.zeta?.reason ?? "", /peer bin\/impostor calls itself "alpha".*plugin "alpha"/);
    assert.ok(t.app.pool.registry.loaded.get("alpha"));
    const res = await request(`${t.url}/plugins/mid/go`, admin);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body, "from alpha");
  });

  it("a failed plugin's peer is not importable: its importer fails at load, naming it", () => {
    const failed = Object.fromEntries(t.app.pool.registry.failed.map((f) => [f.name, f]));
    assert.ok(failed.broken, "broken fails for its missing handler");
    assert.equal(t.app.pool.registry.loaded.get("later"), undefined, "later imports the failed plugin's peer");
    assert.match(failed.later?.reason ?? "", /brokenpeer/);
  });
});
