/** Form-encoded POSTs (what an HTML form sends) reach plugin handlers as params, under the JSON body's limits. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeProbePlugin } from "../helpers/probe-plugin.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("form-encoded bodies on /plugins/<name>/<fn>", () => {
  let t: TestApp;
  let token: string;

  before(async () => {
    const root = tempDir();
    writeProbePlugin(root);
    t = await startApp({ pluginsDir: root, config: { maxBodyBytes: 4096, plugins: { probe: { marker: "/nonexistent/marker", region: "eu" } } } });
    token = (await t.userWithToken("carol")).token;
  });
  after(() => t.close());

  it("arrive as params like a query string: strings, repeated keys as lists, the body over the query", async () => {
    const body = new URLSearchParams([["b", "form"], ["tag", "x"], ["tag", "y"], ["text", "a & b = c ✓"]]).toString();
    const res = await request(`${t.url}/plugins/probe/echo?a=1&b=query`, token, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" }, body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.params, { a: "1", b: "form", tag: ["x", "y"], text: "a & b = c ✓" });
    const empty = await request(`${t.url}/plugins/probe/echo`, token, { method: "POST", headers: FORM, body: "" });
    assert.deepEqual(empty.body.params, {});
  });

  it("are held to the body's byte limit and nesting limit", async () => {
    const big = await request(`${t.url}/plugins/probe/echo`, token, { method: "POST", headers: FORM, body: `x=${"a".repeat(5000)}` });
    assert.equal(big.status, 413);
    assert.equal(big.body.code, "PAYLOAD_TOO_LARGE");
    const deep = `params=${encodeURIComponent(`${"{\"a\":".repeat(200)}1${"}".repeat(200)}`)}`;
    const nested = await request(`${t.url}/plugins/probe/echo`, token, { method: "POST", headers: FORM, body: deep });
    assert.equal(nested.status, 400);
    assert.equal(nested.body.code, "INVALID_ARGUMENT");
  });

  it("a field named __proto__ stays a plain param, never the params object's prototype", async () => {
    const res = await request(`${t.url}/plugins/probe/echo`, token, { method: "POST", headers: FORM, body: "__proto__=a&__proto__=b&ok=1" });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.params, JSON.parse('{"__proto__":["a","b"],"ok":"1"}'));
    const query = await request(`${t.url}/plugins/probe/echo?__proto__=a&__proto__=b`, token);
    assert.deepEqual(query.body.params, JSON.parse('{"__proto__":["a","b"]}'), "the query string reads the same way");
    // The same inside a `params` JSON expansion, in a query and in a form.
    const packed = encodeURIComponent('{"__proto__":{"word":"x"},"a":1}');
    const expanded = await request(`${t.url}/plugins/probe/echo?params=${packed}`, token);
    assert.deepEqual(expanded.body.params, JSON.parse('{"__proto__":{"word":"x"},"a":1}'));
    const posted = await request(`${t.url}/plugins/probe/echo`, token, { method: "POST", headers: FORM, body: `params=${packed}` });
    assert.deepEqual(posted.body.params, JSON.parse('{"__proto__":{"word":"x"},"a":1}'));
  });

  it("other content types are still read as JSON (a non-JSON body stays 400 INVALID_JSON)", async () => {
    const res = await request(`${t.url}/plugins/probe/echo`, token, { method: "POST", headers: { "content-type": "text/plain" }, body: "a=1" });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_JSON");
  });

  it("a cookie session still needs the CSRF header for a form POST", async () => {
    const signIn = await fetch(`${t.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", "x-knot-csrf": "1" }, body: JSON.stringify({ token }) });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    const refused = await request(`${t.url}/plugins/probe/echo`, null, { method: "POST", headers: { ...FORM, cookie }, body: "a=1" });
    assert.equal(refused.status, 403);
    const allowed = await request(`${t.url}/plugins/probe/echo`, null, { method: "POST", headers: { ...FORM, cookie, "x-knot-csrf": "1" }, body: "a=1" });
    assert.deepEqual(allowed.body.params, { a: "1" });
  });
});
