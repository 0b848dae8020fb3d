/**
 * Peers: plugins as external processes speaking JSON-RPC over stdio lines. A Python peer with no
 * main.js loads from bin/, its handlers are gated, audited and listed over MCP like in-process
 * ones; a peer calls another plugin as the requesting user; a user tool reaches it over the
 * loopback; a crashed peer answers 503 PLUGIN_UNAVAILABLE until it is restarted; fetcher reads
 * fall back to the disk, which decides what exists.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import type { Principal } from "../../src/identity/principal.ts";
import { EXAMPLE_PLUGINS, manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { waitFor, writePythonPeer } from "../helpers/peers.ts";
import { connect, toolNames } from "../mcp/helpers.ts";

const COUNT = "plugin.wordcount.count";
const VIEW = "plugin.demo.view_dashboard";

function writeTestPlugins(root: string): void {
  writePythonPeer(root, "lab", "lab", {
    name: "lab",
    manifest: { version: "1.0.0", handlers: [{ handler: "stash" }, { handler: "replay" }, { handler: "crash" }, { handler: "whoami" }, { handler: "refuse" }] },
    body: `
stashed = {}
@peer.function
def stash(request, ctx):
    stashed["ctx"] = ctx
    return "stashed"
@peer.function
def replay(request, ctx):
    return stashed["ctx"].call("demo", "lib_exports", {})
@peer.function
def crash(request, ctx):
    os._exit(3)
@peer.function
def whoami(request, ctx):
    return {"user": request["user"]["name"], "method": request["method"], "config": request["config"]}
@peer.function
def refuse(request, ctx):
    raise KnotError("INVALID_ARGUMENT", "lab refuses: word is missing")
`,
  });
  writePlugin(root, "composer", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      [[tool.knot.handlers]]
      handler = "compose"
    `) + `import { count_words } from "plugin:wordcount";\nexport async function compose(r) { return count_words({ text: r.params.text }); }\n`,
  });
  // Serves its own client.js (peer-first), fails format.js (disk fallback).
  writePythonPeer(root, "fetchy", "fetchy", {
    name: "fetchy", fetcher: true,
    manifest: { version: "1.0.0", export: ["client.js", "format.js"] },
    body: `
import base64
original = peer._dispatch
def dispatch(method, params):
    if method == "fetch":
        if params["path"] == "client.js":
            return {"content": base64.b64encode(b"export const served = 'by the peer';\\n").decode()}
        raise KnotError("NOT_FOUND", "no")
    return original(method, params)
peer._dispatch = dispatch
`,
  });
  fs.writeFileSync(`${root}/fetchy/client.js`, "export const served = 'from disk';\n");
  fs.writeFileSync(`${root}/fetchy/format.js`, "export const format = 'disk format';\n");
  // Declares an export that only the peer claims to have: the disk decides, so the plugin fails.
  writePythonPeer(root, "ghosty", "ghosty", {
    name: "ghosty", fetcher: true,
    manifest: { version: "1.0.0", export: ["ghost.js"] },
    body: `
import base64
peer._dispatch = (lambda original: lambda method, params: {"content": base64.b64encode(b"export const x = 1;").decode()} if method == "fetch" else original(method, params))(peer._dispatch)
`,
  });
  writePythonPeer(root, "twins", "a", { name: "a", body: "" });
  writePythonPeer(root, "twins", "b", { name: "b", body: "" });
  writePythonPeer(root, "badkey", "badkey", { name: "badkey", manifest: { version: "1.0.0", handlerz: [] }, body: "" });
}

describe("peers: plugins as JSON-RPC processes in bin/", () => {
  let t: TestApp;
  let counter: { token: string; principal: Principal }, both: { token: string; principal: Principal }, nobody: string, admin: string;

  before(async () => {
    const root = tempDir();
    fs.cpSync(EXAMPLE_PLUGINS, root, { recursive: true });
    writeTestPlugins(root);
    t = await startApp({ pluginsDir: root, config: { plugins: { lab: { greeting: "hi" } } } });
    const c = await t.userWithToken("counter", { grants: [COUNT, "knot.mcp"] });
    const b = await t.userWithToken("both", { grants: [COUNT, VIEW] });
    counter = { token: c.token, principal: (await t.app.auth.principalFor(c.user.id))! };
    both = { token: b.token, principal: (await t.app.auth.principalFor(b.user.id))! };
    nobody = (await t.userWithToken("nobody")).token;
    admin = (await t.userWithToken("root", { admin: true })).token;
  });
  after(() => t.close());

  it("loads a Python peer from bin/ with no main.js; its manifest is validated like a block", () => {
    const wordcount = t.app.pool.registry.loaded.get("wordcount");
    assert.ok(wordcount, JSON.stringify(t.app.pool.registry.failed));
    assert.equal(fs.existsSync(`${wordcount.dir}/main.js`), false);
    assert.deepEqual(wordcount.manifest.handlers.map((h) => [h.handler, h.permission]), [["count_words", COUNT], ["shout_via_demo", COUNT]]);
    const badkey = t.app.pool.registry.failed.find((f) => f.name === "badkey");
    assert.match(badkey?.reason ?? "", /tool\.knot\.handlerz is not a known key/);
    assert.match(t.app.pool.registry.failed.find((f) => f.name === "twins")?.reason ?? "", /ambiguous/);
  });

  it("gates and audits peer handlers like in-process ones", async () => {
    const refused = await request(`${t.url}/plugins/wordcount/count_words?text=a+b`, nobody);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "PERMISSION_DENIED");
    const ok = await request(`${t.url}/plugins/wordcount/count_words`, counter.token, { method: "POST", body: JSON.stringify({ text: "one two three" }) });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { words: 3, by: "counter" });
    await waitFor(async () => (await t.app.store.queryAudit({ tool: "wordcount/count_words" })).length >= 2, 5_000, "audit rows");
    const outcomes = (await t.app.store.queryAudit({ tool: "wordcount/count_words" })).map((r) => r.outcome).sort();
    assert.deepEqual(outcomes, ["PERMISSION_DENIED", "ok"]);
  });

  it("a peer's JSON-RPC error with a product code is answered like a thrown KnotError", async () => {
    const res = await request(`${t.url}/plugins/lab/refuse`, nobody);
    assert.equal(res.status, 400);
    assert.deepEqual([res.body.code, res.body.error], ["INVALID_ARGUMENT", "lab refuses: word is missing"]);
    const who = await request(`${t.url}/plugins/lab/whoami`, nobody, { method: "POST", body: "{}" });
    assert.deepEqual(who.body, { user: "nobody", method: "POST", config: { greeting: "hi" } });
  });

  it("peer MCP tools are listed and called per user through the same gates", async () => {
    const { client } = await connect(t.url, counter.token);
    try {
      assert.ok((await toolNames(client)).includes("count_words"));
      const result = await client.callTool({ name: "count_words", arguments: { text: "a b c d" } });
      assert.equal(result.isError ?? false, false);
      assert.match(JSON.stringify(result.content), /\\"words\\":4/);
    } finally {
      await client.close();
    }
  });

  it("a peer calls another plugin as the requesting user: refused without the grant", async () => {
    const refused = await request(`${t.url}/plugins/wordcount/shout_via_demo?word=hey`, counter.token);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "PERMISSION_DENIED");
    const ok = await request(`${t.url}/plugins/wordcount/shout_via_demo?word=hey`, both.token);
    assert.deepEqual(ok.body, { shout: "HEY", echoedBy: "both" });
  });

  it("a callId that is no longer in flight is refused", async () => {
    assert.equal((await request(`${t.url}/plugins/lab/stash`, admin)).body, "stashed");
    const res = await request(`${t.url}/plugins/lab/replay`, nobody);
    assert.equal(res.status, 403);
    assert.match(res.body.error, /callId is not a call in flight/);
  });

  it("a user tool reaches the peer only over the loopback, through its fetched client module", async () => {
    const code = `import { countWords } from "plugin:wordcount";\nexport default async (r) => countWords(r.params.text);\n`;
    const run = (who: Principal) => t.app.runner.run(who, { name: "wc", code, language: "js" }, { text: "x y" }, { validated: true });
    const ok = await run(counter.principal);
    assert.deepEqual(ok.ok && ok.result, { kind: "json", value: { words: 2, by: "counter" } });
    const nobodyPrincipal = (await t.app.auth.principalFor((await t.app.store.getUserByName("nobody"))!.id))!;
    const refused = await run(nobodyPrincipal);
    assert.equal(!refused.ok && refused.error.code, "PERMISSION_DENIED");
  });

  it("plugin code imports a peer's functions as async proxies, ungated, as the caller", async () => {
    const res = await request(`${t.url}/plugins/composer/compose?text=p+q+r`, nobody);
    assert.deepEqual(res.body, { words: 3, by: "nobody" });
  });

  it("fetcher: peer first, disk second; the disk decides whether a file exists", () => {
    const fetchy = t.app.pool.registry.loaded.get("fetchy");
    assert.ok(fetchy, JSON.stringify(t.app.pool.registry.failed));
    assert.match(t.app.pool.registry.clientModule("plugin:fetchy/client") ?? "", /by the peer/);
    assert.match(t.app.pool.registry.clientModule("plugin:fetchy/format") ?? "", /disk format/);
    const ghosty = t.app.pool.registry.failed.find((f) => f.name === "ghosty");
    assert.match(ghosty?.reason ?? "", /ghost\.js.*cannot read the client module/);
  });

  it("a crashed peer answers 503 PLUGIN_UNAVAILABLE until it is restarted; /api/plugins shows its health", async () => {
    const crashed = await request(`${t.url}/plugins/lab/crash`, nobody);
    assert.equal(crashed.status, 503);
    assert.equal(crashed.body.code, "PLUGIN_UNAVAILABLE");
    const meanwhile = await request(`${t.url}/plugins/lab/whoami`, nobody);
    assert.equal(meanwhile.status, 503);
    const health = async () => (await request(`${t.url}/api/plugins`, admin)).body.loaded.find((p: { name: string }) => p.name === "lab").peers[0];
    assert.equal((await health()).state, "restarting");
    // Its pipe closes before its exit is seen: the exit's reason is recorded when it comes.
    await waitFor(async () => /exited \(code 3\)/.test((await health()).lastError ?? ""), 5_000, "the exit to be recorded");
    await waitFor(async () => (await health()).state === "up", 10_000, "the peer to restart");
    assert.equal((await health()).restarts, 1);
    assert.equal((await request(`${t.url}/plugins/lab/whoami`, nobody)).body.user, "nobody");
  });
});
