import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { parseLoopbackRequest } from "../../sandbox/worker/loopback.ts";
import { assertError, assertOk, createTestPool, runTool, sentParams, startLoopbackServer, type LoopbackServer } from "./harness.ts";

let pool: SandboxPool;
let server: LoopbackServer;

before(async () => {
  pool = createTestPool();
  server = await startLoopbackServer((plugin, fn, call) => {
    if (fn === "denied") return { status: 403, body: { error: { code: "PERMISSION_DENIED", message: "permission denied" } } };
    if (fn === "broken") return { status: 500, body: { error: { code: "HANDLER_FAILED", message: "the handler failed" } } };
    if (fn === "text") return { contentType: "text/plain", body: "plain words" };
    if (plugin !== "metrics") return { status: 404 };
    return { body: { method: call.method, fn, params: sentParams(call) } };
  });
});
after(async () => {
  await pool.close();
  await server.close();
});

const PARAMS = { range: "1h", hours: 24, ratio: 0.5, on: true, off: false, none: null, nested: { list: [1, "two", { three: 3 }] } };

test("call() with method POST sends JSON params to /plugins/<name>/<fn> with the run's token; types survive both ways", async () => {
  const before = server.calls.length;
  const source = `import { call } from "knot:plugin"; export default async (request) => call("metrics", "export all", request.params.args, { method: "POST" })`;
  const outcome = await runTool(pool, source, { params: { args: PARAMS }, loopback: server.target, requestId: "req-77" });
  assert.deepEqual(assertOk(outcome), { kind: "json", value: { method: "POST", fn: "export all", params: PARAMS } });
  const sent = server.calls.slice(before);
  assert.equal(sent.length, 1);
  const [call] = sent;
  assert.equal(call?.url, "/plugins/metrics/export%20all");
  assert.equal(call?.headers.authorization, `Bearer ${server.target.token}`);
  assert.equal(call?.headers["x-request-id"], "req-77");
  assert.match(String(call?.headers["content-type"]), /application\/json/);
});

test("GET (the default, as for plugin code) sends the params as ?params=<JSON>, so types survive too; text answers stay text", async () => {
  const source = `import { call } from "knot:plugin";
    export default async (request) => ({ got: await call("metrics", "read", request.params.args), text: await call("metrics", "text", {}, { method: "GET" }) })`;
  const outcome = await runTool(pool, source, { params: { args: PARAMS }, loopback: server.target });
  assert.deepEqual(assertOk(outcome), { kind: "json", value: { got: { method: "GET", fn: "read", params: PARAMS }, text: "plain words" } });
  assert.match(server.calls.at(-2)?.url ?? "", /^\/plugins\/metrics\/read\?params=%7B/);
});

test("GET params too large for a URL are refused in the run, saying to use POST; the same params go by POST", async () => {
  const source = `import { call } from "knot:plugin";
    export default async () => {
      const big = { text: "x".repeat(17000) };
      let refused;
      try { await call("metrics", "read", big); } catch (e) { refused = { code: e.code, message: e.message }; }
      const posted = await call("metrics", "read", big, { method: "POST" });
      return { refused, postedLength: posted.params.text.length };
    }`;
  const outcome = await runTool(pool, source, { loopback: server.target });
  const value = (assertOk(outcome) as { value: { refused: { code: string; message: string }; postedLength: number } }).value;
  assert.equal(value.refused?.code, "INVALID_ARGUMENT", JSON.stringify(value));
  assert.match(value.refused.message, /method: "POST"/);
  assert.equal(value.postedLength, 17000);
});

test("403 rejects with a catchable PERMISSION_DENIED, 404 with NOT_ADDRESSABLE, others with LOOPBACK_FAILED", async () => {
  const source = `import { call } from "knot:plugin";
    const grab = async (p, fn) => { try { await call(p, fn); return "no error" } catch (e) { return [e instanceof Error, e.code, e.message] } };
    export default async () => [await grab("metrics", "denied"), await grab("nowhere", "x"), await grab("metrics", "broken")]`;
  assert.deepEqual(assertOk(await runTool(pool, source, { loopback: server.target })), {
    kind: "json",
    value: [
      [true, "PERMISSION_DENIED", "permission denied"],
      [true, "NOT_ADDRESSABLE", "not addressable"],
      [true, "LOOPBACK_FAILED", "metrics/broken failed with HTTP 500: the handler failed"],
    ],
  });
});

test("an uncaught loopback error keeps its code as the run's outcome, in a handler or at top level", async () => {
  const handler = `import { call } from "knot:plugin"; export default () => call("metrics", "denied")`;
  assertError(await runTool(pool, handler, { loopback: server.target }), "PERMISSION_DENIED", /^permission denied$/);
  const topLevel = `import { call } from "knot:plugin"; await call("ghost", "fn");`;
  assertError(await runTool(pool, topLevel, { loopback: server.target }), "NOT_ADDRESSABLE", /^not addressable$/);
});

test("names are checked before anything is sent", async () => {
  const before = server.calls.length;
  const source = `import { call } from "knot:plugin";
    const bad = [["../x", "f"], ["", "f"], ["Metrics", "f"], ["metrics", ""], ["metrics", "a/b"], ["metrics", "a?b"], ["metrics", "a#b"], ["metrics", "a&b"], ["metrics", ".."], [{ toString: () => "metrics" }, "f"]];
    export default async () => { const out = []; for (const [p, f] of bad) { try { await call(p, f); out.push("sent") } catch (e) { out.push(e.name) } }
      for (const opts of [{ method: "DELETE" }, { method: "get" }]) { try { await call("metrics", "f", {}, opts); out.push("sent") } catch (e) { out.push(e.name) } }
      for (const params of [[1], "str", { toJSON: () => "str" }, { big: 10n }]) { try { await call("metrics", "f", params); out.push("sent") } catch (e) { out.push(e.name) } }
      return out }`;
  const value = (assertOk(await runTool(pool, source, { loopback: server.target })) as { value: string[] }).value;
  assert.deepEqual(value, Array(16).fill("TypeError"));
  assert.equal(server.calls.length, before);
});

test("without a loopback target, call() fails with LOOPBACK_FAILED", async () => {
  assertError(await runTool(pool, `import { call } from "knot:plugin"; await call("metrics", "x")`), "LOOPBACK_FAILED", /not available/);
});

test("more calls than limits.loopbackCalls end the run with LOOPBACK_LIMIT, even when caught", async () => {
  const before = server.calls.length;
  const source = `import { call } from "knot:plugin";
    export default async () => { for (let i = 0; i < 10; i++) { try { await call("metrics", "n" + i) } catch {} } return "kept going" }`;
  assertError(await runTool(pool, source, { loopback: server.target, limits: { loopbackCalls: 3 } }), "LOOPBACK_LIMIT", /more than 3/);
  assert.equal(server.calls.length - before, 3);
});

test("the worker re-checks every call the guest sends: a target the guest's own check would refuse is refused here too", () => {
  const ok = parseLoopbackRequest(JSON.stringify({ plugin: "demo", fn: "echo_word", method: "POST", params: {} }));
  assert.deepEqual(ok, { plugin: "demo", fn: "echo_word", method: "POST", params: {} });
  const refusals: Array<[unknown, RegExp]> = [
    [{ plugin: "../admin", fn: "x", method: "GET", params: {} }, /plugin name/],
    [{ plugin: "a".repeat(129), fn: "x", method: "GET", params: {} }, /plugin name/],
    [{ plugin: "demo", fn: "a/b", method: "GET", params: {} }, /handler name/],
    [{ plugin: "demo", fn: "..", method: "GET", params: {} }, /handler name/],
    [{ plugin: "demo", fn: "x?y=1", method: "GET", params: {} }, /handler name/],
    [{ plugin: "demo", fn: "x", method: "DELETE", params: {} }, /method/],
    [{ plugin: "demo", fn: "x", method: "GET", params: [] }, /params/],
    [["not", "an", "object"], /not an object/],
  ];
  for (const [request, reason] of refusals) assert.match(String(parseLoopbackRequest(JSON.stringify(request))), reason);
  assert.match(String(parseLoopbackRequest("{")), /not JSON/);
});
