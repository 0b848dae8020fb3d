import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeProbePlugin } from "../helpers/probe-plugin.ts";

describe("HTTP /plugins/<name>/<fn>", () => {
  let t: TestApp;
  let marker: string;
  let admin: string, granted: string, viaGroup: string, plain: string;

  before(async () => {
    const root = tempDir();
    writeProbePlugin(root);
    marker = path.join(tempDir(), "marker.txt");
    t = await startApp({ pluginsDir: root, config: { plugins: { probe: { marker, region: "eu" } }, handlerTimeoutMs: 300 } });
    admin = (await t.userWithToken("root", { admin: true })).token;
    granted = (await t.userWithToken("alice", { grants: ["plugin.probe.secret"] })).token;
    const bob = await t.user("bob", { groups: ["ops"] });
    await t.app.store.grant({ subject: { kind: "group", group: "ops" }, permission: "plugin.probe.secret" });
    viaGroup = await t.token(bob);
    plain = (await t.userWithToken("carol")).token;
  });
  after(() => t.close());

  const markerText = () => (fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "");

  it("answers 401 with WWW-Authenticate without a valid credential", async () => {
    for (const token of [null, "kt_not-a-real-token"]) {
      const res = await request(`${t.url}/plugins/probe/echo`, token);
      assert.equal(res.status, 401);
      assert.equal(res.body.code, "UNAUTHENTICATED");
      assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
    }
  });

  it("refuses a revoked or expired token", async () => {
    const user = await t.user("dave");
    const expired = await t.token(user, null, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    assert.equal((await request(`${t.url}/plugins/probe/echo`, expired)).status, 401);
    const revoked = await t.token(user);
    const [record] = (await t.app.store.listTokens(user.id)).filter((r) => r.expiresAt === null);
    assert.ok(record);
    assert.equal((await request(`${t.url}/plugins/probe/echo`, revoked)).status, 200);
    await t.app.store.revokeToken(record.id);
    assert.equal((await request(`${t.url}/plugins/probe/echo`, revoked)).status, 401);
  });

  it("builds request = {method, path, params, config, user}; body wins over query; JSON types survive", async () => {
    const res = await request(`${t.url}/plugins/probe/echo?a=1&b=query&list=x&list=y`, plain, {
      method: "POST", body: JSON.stringify({ b: 2, nested: { ok: true }, n: null }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.method, "POST");
    assert.equal(res.body.path, "/plugins/probe/echo");
    assert.deepEqual(res.body.params, { a: "1", b: 2, list: ["x", "y"], nested: { ok: true }, n: null });
    assert.deepEqual(res.body.config, { marker, region: "eu" });
    assert.equal(res.body.user.name, "carol");
    assert.equal(res.body.user.isAdmin, false);
  });

  it("expands a JSON `params` query so GET keeps types", async () => {
    const q = encodeURIComponent(JSON.stringify({ n: 3, flag: false, list: [1, "2"] }));
    const res = await request(`${t.url}/plugins/probe/echo?params=${q}`, plain);
    assert.deepEqual(res.body.params, { n: 3, flag: false, list: [1, "2"] });
  });

  it("answers 403 permission denied and never runs a refused handler", async () => {
    const before = markerText();
    const res = await request(`${t.url}/plugins/probe/gated`, plain, { method: "POST", body: "{}" });
    assert.equal(res.status, 403);
    assert.deepEqual([res.body.error, res.body.code], ["permission denied", "PERMISSION_DENIED"]);
    assert.equal(markerText(), before, "the gated handler must not have run");
  });

  it("grants work directly, through a group, and admins pass every gate", async () => {
    for (const [token, name] of [[granted, "alice"], [viaGroup, "bob"], [admin, "root"]] as const) {
      const res = await request(`${t.url}/plugins/probe/gated`, token);
      assert.equal(res.status, 200, name);
      assert.equal(res.body.by, name);
    }
    assert.equal(markerText().split("\n").filter(Boolean).length, 3);
  });

  it("answers 404 not addressable for unknown plugins, undeclared functions and bad names", async () => {
    for (const p of ["/plugins/nope/echo", "/plugins/probe/notDeclared", "/plugins/probe/nothing", "/plugins/Probe/echo", "/plugins/probe/a%3Fb", "/plugins/pro%2Fbe/echo"]) {
      const res = await request(t.url + p, admin);
      assert.equal(res.status, 404, p);
      assert.deepEqual([res.body.error, res.body.code], ["not addressable", "NOT_ADDRESSABLE"], p);
    }
  });

  it("answers 400 for malformed JSON and for a non-object body", async () => {
    const bad = await request(`${t.url}/plugins/probe/echo`, plain, { method: "POST", body: "{nope" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "INVALID_JSON");
    const list = await request(`${t.url}/plugins/probe/echo`, plain, { method: "POST", body: "[1,2]" });
    assert.equal(list.status, 400);
    assert.equal(list.body.code, "BAD_REQUEST");
  });

  it("answers 405 METHOD_NOT_ALLOWED, with Allow, for a method a route does not take", async () => {
    const res = await fetch(`${t.url}/api/me`, { method: "DELETE", headers: { authorization: `Bearer ${plain}` } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET");
    assert.equal(((await res.json()) as { code: string }).code, "METHOD_NOT_ALLOWED");
  });

  it("answers 413 over 1 MiB", async () => {
    const big = JSON.stringify({ blob: "x".repeat(1_048_576) });
    const res = await request(`${t.url}/plugins/probe/echo`, plain, { method: "POST", body: big });
    assert.equal(res.status, 413);
    assert.equal(res.body.code, "PAYLOAD_TOO_LARGE");
    assert.equal((await request(`${t.url}/healthz`, null)).status, 200);
  });

  it("a throwing handler gives 500 handler failed with no detail", async () => {
    const res = await request(`${t.url}/plugins/probe/boom`, plain);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: "handler failed", code: "HANDLER_FAILED" });
    assert.doesNotMatch(JSON.stringify(res.body), /passwd|Error|at /);
  });

  it("a handler past its deadline gives 504 HANDLER_TIMEOUT and the server goes on", async () => {
    const res = await request(`${t.url}/plugins/probe/slow?ms=2000`, plain);
    assert.equal(res.status, 504);
    assert.equal(res.body.code, "HANDLER_TIMEOUT");
    assert.equal((await request(`${t.url}/plugins/probe/text`, plain)).body, "plain words");
  });

  it("a plain string return is text/plain", async () => {
    const res = await request(`${t.url}/plugins/probe/text`, plain);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(res.body, "plain words");
  });

  it("GET /api/me describes the caller; /api/plugins is for admins", async () => {
    const me = await request(`${t.url}/api/me`, viaGroup);
    assert.equal(me.body.name, "bob");
    assert.deepEqual(me.body.groups, ["ops"]);
    assert.deepEqual(me.body.pluginPermissions, ["plugin.probe.secret"]);
    assert.equal((await request(`${t.url}/api/plugins`, plain)).status, 403);
    const plugins = await request(`${t.url}/api/plugins`, admin);
    assert.equal(plugins.status, 200);
    assert.deepEqual(plugins.body.loaded.map((p: { name: string }) => p.name), ["probe"]);
    assert.deepEqual(plugins.body.loaded[0].permissions, ["plugin.probe.secret", "plugin.probe.open"]);
  });

  it("GET /healthz answers without credentials; unknown routes are 404 NOT_FOUND", async () => {
    assert.deepEqual((await request(`${t.url}/healthz`, null)).body.ok, true);
    const res = await request(`${t.url}/nowhere`, null);
    assert.equal(res.status, 404);
    assert.equal(res.body.code, "NOT_FOUND");
  });
});
