import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { KnotError } from "../../src/errors.ts";
import type { Principal } from "../../src/identity/principal.ts";
import { manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { writeProbePlugin } from "../helpers/probe-plugin.ts";

/** A plugin declaring one handler, `handler`, whose module is `source`. */
function writeOneHandler(root: string, name: string, handler: string, source: string): void {
  writePlugin(root, name, {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      [[tool.knot.handlers]]
      handler = "${handler}"
    `) + source,
  });
}

function writeComposer(root: string): void {
  writePlugin(root, "base", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
    `) + `export const GREETING = "hello";\nexport function shout(w) { return w.toUpperCase(); }\n`,
    "libs/shapes.js": `export class Square { constructor(s) { this.s = s; } area() { return this.s * this.s; } }\n`,
  });
  writeOneHandler(root, "composer", "compose", `
import { GREETING, shout } from "plugin:base";
import { Square } from "plugin:base/shapes";
export function compose() {
  return { greeting: shout(GREETING), area: new Square(3).area() };
}
`);
  writeOneHandler(root, "mutator", "mutate", `
export function mutate(request) {
  let threw = false;
  try { request.config.added = "by an earlier call"; } catch { threw = true; }
  return { threw, added: request.config.added ?? null, frozen: Object.isFrozen(request.config) };
}
`);
  writeOneHandler(root, "prototypes", "inspect", `
export function inspect(request) {
  const { params } = request;
  return {
    prototypes: [Object.getPrototypeOf(params) === Object.prototype, Object.getPrototypeOf(params.inner) === Object.prototype],
    inherited: [params.isAdmin ?? null, params.inner.isAdmin ?? null, {}.isAdmin ?? null],
    own: [Object.keys(params), Object.keys(params.inner)],
  };
}
`);
  writePlugin(root, "intruder", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
    `) + `import "plugin:ghost";\n`,
  });
}

describe("the trusted plugin pool", () => {
  let t: TestApp;
  let marker: string;
  let alice: Principal, carol: Principal, root: Principal;
  let aliceToken: string, carolToken: string;

  before(async () => {
    const dir = tempDir();
    writeProbePlugin(dir);
    writeComposer(dir);
    marker = path.join(tempDir(), "marker.txt");
    t = await startApp({ pluginsDir: dir, config: { plugins: { probe: { marker } } } });
    const a = await t.userWithToken("alice", { grants: ["plugin.probe.secret"] });
    const c = await t.userWithToken("carol");
    const r = await t.user("root", { admin: true });
    aliceToken = a.token;
    carolToken = c.token;
    alice = (await t.app.auth.principalFor(a.user.id))!;
    carol = (await t.app.auth.principalFor(c.user.id))!;
    root = (await t.app.auth.principalFor(r.id))!;
  });
  after(() => t.close());

  it("plugins import each other's main module and libs with plain import syntax", async () => {
    assert.deepEqual(await t.app.pool.call(carol, "composer", "compose", {}, {}), { greeting: "HELLO", area: 9 });
  });

  it("a handler cannot change the config the next call sees (one frozen copy per loaded plugin)", async () => {
    for (let call = 0; call < 2; call += 1) {
      assert.deepEqual(await t.app.pool.call(carol, "mutator", "mutate", {}, {}), { threw: true, added: null, frozen: true });
    }
  });

  it("attack: a __proto__ member in HTTP params (no schema check on this path) stays data in the handler's copy", async () => {
    const body = '{"__proto__":{"isAdmin":true},"inner":{"__proto__":{"isAdmin":true}}}';
    const reply = await request(`${t.url}/plugins/prototypes/inspect`, carolToken, { method: "POST", body });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { prototypes: [true, true], inherited: [null, null, null], own: [["__proto__", "inner"], ["__proto__"]] });
  });

  it("importing a plugin that is not loaded fails that plugin at load", () => {
    const failure = t.app.pool.registry.failed.find((f) => f.name === "intruder");
    assert.match(failure?.reason ?? "", /plugin "ghost" is not loaded/);
  });

  it("binds knot:identity per call: overlapping calls as different users each see their own", async () => {
    const calls = Array.from({ length: 20 }, (_, i) => {
      const who = i % 2 === 0 ? alice : carol;
      return t.app.pool.call(who, "probe", "whoami", { ms: 30 - i }, {}).then((r) => ({ who: who.user.name, r: r as Record<string, unknown> }));
    });
    for (const { who, r } of await Promise.all(calls)) {
      assert.equal(r.identity, who);
      assert.equal(r.data, who);
      assert.equal(r.canSecret, who === "alice");
    }
  });

  it("admin passes every identity check", async () => {
    const r = await t.app.pool.call(root, "probe", "whoami", {}, {}) as Record<string, unknown>;
    assert.equal(r.admin, true);
    assert.equal(r.canSecret, true);
  });

  it("call() enforces the gate for the requesting user before the handler runs", async () => {
    const before = fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "";
    await assert.rejects(t.app.pool.call(carol, "probe", "gated", {}, {}), (e: KnotError) => e.code === "PERMISSION_DENIED" && e.message === "permission denied");
    // a nested call from plugin code is gated for the same (requesting) user
    await assert.rejects(t.app.pool.call(carol, "probe", "nested", { fn: "gated" }, {}), (e: KnotError) => e.code === "PERMISSION_DENIED");
    assert.equal(fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "", before);
    assert.deepEqual(await t.app.pool.call(alice, "probe", "nested", { fn: "gated" }, {}), { ran: true, by: "alice" });
  });

  it("call() reaches only declared handlers and checks names", async () => {
    for (const [plugin, fn] of [["probe", "notDeclared"], ["nope", "x"], ["pro/be", "echo"], ["probe", "echo?x"], ["probe", "e#cho"], ["probe", ""]]) {
      await assert.rejects(t.app.pool.call(alice, plugin!, fn!, {}, {}), (e: KnotError) => e.code === "NOT_ADDRESSABLE", `${plugin}/${fn}`);
    }
  });

  it("call() passes the method and params; GET is the default", async () => {
    const get = await t.app.pool.call(carol, "probe", "echo", { n: 1 }, {}) as Record<string, unknown>;
    assert.equal(get.method, "GET");
    const post = await t.app.pool.call(carol, "probe", "echo", { n: 1, deep: [true] }, { method: "post" }) as Record<string, unknown>;
    assert.equal(post.method, "POST");
    assert.deepEqual(post.params, { n: 1, deep: [true] });
  });

  it("in-process call() and HTTP dispatch give the same results and errors", async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ["probe", "echo", { n: 1, s: "x", b: false, l: [1, { a: null }] }, carolToken],
      ["probe", "text", {}, carolToken],
      ["probe", "gated", {}, carolToken],
      ["probe", "gated", {}, aliceToken],
      ["probe", "boom", {}, carolToken],
      ["probe", "notDeclared", {}, carolToken],
      ["ghost", "echo", {}, carolToken],
    ];
    for (const [plugin, fn, params, token] of cases) {
      const principal = token === aliceToken ? alice : carol;
      const inProcess = await t.app.pool.call(principal, plugin, fn, params, { method: "POST" }).then(
        (value) => ({ ok: true, value }), (e: KnotError) => ({ ok: false, code: e.code, message: e.message }));
      const http = await request(`${t.url}/plugins/${plugin}/${fn}`, token, { method: "POST", body: JSON.stringify(params) });
      const overHttp = http.status === 200 ? { ok: true, value: http.body } : { ok: false, code: http.body.code, message: http.body.error };
      assert.deepEqual(inProcess, overHttp, `${plugin}/${fn}`);
    }
  });
});
