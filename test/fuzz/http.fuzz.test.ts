/**
 * Fuzzing the HTTP dispatch and /api with random paths, methods, headers and bodies: no input may
 * crash the server or yield a 500 other than `handler failed`.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, it } from "node:test";
import fc from "fast-check";
import { startApp, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;
let token: string;
let port: number;

before(async () => {
  t = await startApp();
  token = (await t.userWithToken("fuzzer", { admin: true })).token;
  port = Number(new URL(t.url).port);
});
after(() => t.close());

function send(method: string, path: string, headers: Record<string, string>, body: string | null): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, timeout: 10_000 }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timeout")));
    if (body !== null) req.end(body);
    else req.end();
  });
}

const segment = fc.oneof(
  fc.constantFrom("api", "plugins", "demo", "metrics", "echo_word", "export_all", "tools", "me", "plugins", "check", "run", "versions", "audit", "mcp", "healthz", "..", "%2F", "%00", "%ZZ", "1", ""),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
);
const path = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.option(fc.string({ maxLength: 30 }).map(encodeURIComponent)))
  .map(([segs, query]) => `/${segs.join("/")}${query ? `?${query}=${query}&params=${query}` : ""}`);
const method = fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "BREW");
const body = fc.option(fc.oneof(fc.json(), fc.string({ maxLength: 200 }), fc.constantFrom("{", "[]", "null", '{"args":[]}', '{"code":1}', '{"name":"x","code":"export default 1"}')), { nil: null });
const auth = fc.constantFrom("good", "none", "garbage", "basic");

it("random requests never crash the server or give a 500 other than handler failed", async () => {
  await fc.assert(fc.asyncProperty(method, path, body, auth, fc.boolean(), async (m, p, b, a, json) => {
    const headers: Record<string, string> = {};
    if (a === "good") headers.authorization = `Bearer ${token}`;
    if (a === "garbage") headers.authorization = "Bearer \u00ff\u00fe garbage";
    if (a === "basic") headers.authorization = "Basic Zm9vOmJhcg==";
    if (json) headers["content-type"] = "application/json";
    const res = await send(m, p, headers, m === "GET" || m === "HEAD" ? null : b);
    assert.ok(res.status >= 200 && res.status < 600, `status ${res.status}`);
    if (res.status === 500) assert.match(res.text, /handler failed/, `${m} ${p}: ${res.text}`);
  }), { numRuns: Number(process.env.FUZZ_RUNS ?? 250) });
  const health = await send("GET", "/healthz", {}, null);
  assert.equal(health.status, 200);
});
