import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { isLoopbackAddress } from "../../src/auth/authenticate.ts";
import { EXAMPLE_PLUGINS, request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeProbePlugin } from "../helpers/probe-plugin.ts";

const AUTHOR = "knot.tools.author";
const VIEW = "plugin.demo.view_dashboard";
const ECHO_TOOL = `import { Widgets } from "plugin:demo";\nexport default async (r) => new Widgets().echo(r.params.word ?? "hi");\n`;

describe("the loopback: user tools reach plugin handlers only through the gated HTTP dispatch", () => {
  let t: TestApp;
  let owner: { token: string }, granted: { token: string }, stranger: { token: string };
  let sharedId: string;
  const captured: string[] = [];

  before(async () => {
    const root = tempDir();
    fs.cpSync(EXAMPLE_PLUGINS, root, { recursive: true });
    writeProbePlugin(root);
    t = await startApp({ pluginsDir: root, config: { plugins: { probe: { marker: path.join(tempDir(), "m") } } } });
    owner = await t.userWithToken("owner", { grants: [AUTHOR, VIEW] });
    granted = await t.userWithToken("granted", { grants: [VIEW] });
    stranger = await t.userWithToken("stranger");
    const res = await request(`${t.url}/api/tools`, owner.token, { method: "POST", body: JSON.stringify({ name: "echo_demo", code: ECHO_TOOL, sharing: "everyone", parameters: [{ name: "word", type: "string" }] }) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    sharedId = res.body.tool.id;
    // Observe the per-run tokens the host mints (the guest never can).
    const mint = t.app.loopbackTokens.mint.bind(t.app.loopbackTokens);
    t.app.loopbackTokens.mint = (principal, runId, ttl) => {
      const minted = mint(principal, runId, ttl);
      captured.push(minted.token);
      return minted;
    };
  });
  after(() => t.close());

  const run = (token: string, args: Record<string, unknown> = {}, id = sharedId) =>
    request(`${t.url}/api/tools/${id}/run`, token, { method: "POST", body: JSON.stringify({ args }) });

  it("runs as the requesting user: the handler's gate and identity are the caller's", async () => {
    const res = await run(granted.token, { word: "loop" });
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    assert.deepEqual(res.body.result, { word: "loop", length: 4, by: "granted", method: "GET" });
  });

  it("a shared tool run by a user without the grant is refused even though its owner has it", async () => {
    const res = await run(stranger.token, { word: "x" });
    assert.equal(res.body.ok, false);
    assert.equal(res.body.error.code, "PERMISSION_DENIED");
    assert.equal((await run(owner.token, { word: "x" })).body.ok, true);
  });

  it("the run's token stops working when the run ends", async () => {
    await run(granted.token);
    const token = captured.at(-1)!;
    const res = await request(`${t.url}/plugins/demo/echo_word?word=replay`, token);
    assert.equal(res.status, 401);
    assert.equal(t.app.loopbackTokens.lookup(token), null);
  });

  it("a live loopback token is refused on management routes and accepted only from loopback addresses", async () => {
    const principal = (await t.app.auth.principalFor((await t.app.store.getUserByName("granted"))!.id))!;
    const live = t.app.loopbackTokens.mint(principal, "test-run", 60_000);
    try {
      assert.equal((await request(`${t.url}/plugins/demo/echo_word?word=ok`, live.token)).status, 200, "usable on /plugins from loopback");
      assert.equal((await request(`${t.url}/api/me`, live.token)).status, 200, "usable on read-only /api/me");
      for (const route of ["/api/plugins", "/api/tools"]) {
        assert.equal((await request(t.url + route, live.token)).status, 401, route);
      }
      const created = await request(`${t.url}/api/tools`, live.token, { method: "POST", body: JSON.stringify({ name: "sneaky", code: "" }) });
      assert.equal(created.status, 401);
      for (const remoteAddress of ["10.1.2.3", "192.168.0.10", "::ffff:10.0.0.1", "2001:db8::1", undefined]) {
        assert.equal(await t.app.auth.authenticate({ bearer: live.token, remoteAddress, route: "plugin" }), null, String(remoteAddress));
      }
      assert.ok(await t.app.auth.authenticate({ bearer: live.token, remoteAddress: "127.0.0.1", route: "plugin" }));
      assert.equal(isLoopbackAddress("::1"), true);
    } finally {
      live.revoke();
    }
  });

  it("params keep their JSON types over the loopback for GET and POST", async () => {
    const code = `import { call } from "knot:plugin";
export default async () => ({
  get: (await call("probe", "echo", { n: 1.5, b: true, l: [1, "2", null], o: { k: "v" } }, { method: "GET" })).params,
  post: (await call("probe", "echo", { n: 1.5, b: true, l: [1, "2", null], o: { k: "v" } }, { method: "POST" })),
});`;
    const res = await request(`${t.url}/api/tools/run`, owner.token, { method: "POST", body: JSON.stringify({ code }) });
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    const expected = { n: 1.5, b: true, l: [1, "2", null], o: { k: "v" } };
    assert.deepEqual(res.body.result.get, expected);
    assert.deepEqual(res.body.result.post.params, expected);
    assert.equal(res.body.result.post.method, "POST");
    assert.equal(res.body.result.post.user.name, "owner");
  });

  it("undeclared handlers are not addressable from a user tool, as catchable errors", async () => {
    const code = `import { call } from "knot:plugin";
const codes = [];
for (const [p, f] of [["probe", "notDeclared"], ["ghost", "x"], ["demo", "lib_exports_typo"]]) {
  try { await call(p, f); } catch (e) { codes.push(e.code); }
}
export default () => codes;`;
    const res = await request(`${t.url}/api/tools/run`, owner.token, { method: "POST", body: JSON.stringify({ code }) });
    assert.deepEqual(res.body.result, ["NOT_ADDRESSABLE", "NOT_ADDRESSABLE", "NOT_ADDRESSABLE"]);
  });

  it("a failing handler's coded answer reaches the guest (code and safe message, no detail)", async () => {
    const code = `import { call } from "knot:plugin";
export default async () => { try { await call("probe", "boom"); } catch (e) { return { code: e.code, message: e.message }; } };`;
    const res = await request(`${t.url}/api/tools/run`, owner.token, { method: "POST", body: JSON.stringify({ code }) });
    assert.equal(res.body.result.code, "LOOPBACK_FAILED");
    assert.match(res.body.result.message, /HTTP 500 HANDLER_FAILED: handler failed/);
    assert.doesNotMatch(res.body.result.message, /passwd/);
  });

  it("a scoped token narrows the run's loopback calls too", async () => {
    const user = (await t.app.store.getUserByName("granted"))!;
    const narrow = await t.token(user, { permissions: ["knot.tools.run"], write: false });
    const res = await run(narrow, { word: "x" });
    assert.equal(res.body.ok, false);
    assert.equal(res.body.error.code, "PERMISSION_DENIED", "the user has the grant, the token does not");
    const wide = await t.token(user, { permissions: ["knot.tools.run", "plugin.demo.*"], write: false });
    assert.equal((await run(wide, { word: "x" })).body.ok, true);
    const noRun = await t.token(user, { permissions: ["plugin.demo.*"], write: false });
    assert.equal((await run(noRun, { word: "x" })).status, 403, "running user tools needs knot.tools.run in scope");
  });

  it("loopback handler calls are audited as the requesting user", async () => {
    const rows = await t.app.store.queryAudit({ tool: "demo/echo_word" });
    const loopback = rows.filter((r) => r.surface === "loopback");
    assert.ok(loopback.length >= 2);
    assert.ok(loopback.some((r) => r.outcome === "PERMISSION_DENIED"));
    const runs = await t.app.store.queryAudit({ tool: "user:owner/echo_demo" });
    assert.ok(runs.some((r) => r.surface === "api" && r.outcome === "ok"));
  });
});
