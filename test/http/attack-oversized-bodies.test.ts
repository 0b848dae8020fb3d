/**
 * Attack family: memory exhaustion through request bodies. Threat: a caller streams a body with no
 * Content-Length (chunked) or lies about its length, on every surface that reads one — plugin
 * handlers, the JSON API, the public sign-in route, /mcp — so the server buffers without bound.
 * Guarantee: a body is refused with 413 PAYLOAD_TOO_LARGE as soon as it passes the configured
 * limit (a declared length over it is refused before a byte is read), the connection is closed,
 * no handler runs, and the server keeps serving.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

const LIMIT = 4_096;

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly connection: string | undefined;
  readonly sent: number;
}

/** Streams `total` bytes chunked (no Content-Length), or declares `declared` and sends little. */
function upload(url: string, path: string, headers: Record<string, string>, options: { total?: number; declared?: number }): Promise<Reply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = http.request({
      host: target.hostname, port: target.port, path, method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers, ...(options.declared ? { "content-length": String(options.declared) } : {}) },
    }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection, sent }));
    });
    req.on("error", (error) => (sent > 0 ? undefined : reject(error)));
    if (options.declared) {
      req.write('{"a":1}');
      return; // never finish: the server must answer on the header alone
    }
    const chunk = `{"pad":"${"x".repeat(1_000)}"}`;
    const pump = () => {
      while (sent < (options.total ?? 0)) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

describe("oversized request bodies are refused without being buffered", () => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await startApp({ config: { maxBodyBytes: LIMIT } });
    token = (await t.userWithToken("uploader", { grants: ["knot.mcp", "knot.tools.author", "plugin.demo.view_dashboard"] })).token;
  });
  after(() => t.close());

  const surfaces: [string, string, boolean][] = [
    ["plugin handler", "/plugins/demo/echo_word", true],
    ["JSON API", "/api/tools", true],
    ["public sign-in", "/api/session", false],
    ["MCP", "/mcp", true],
  ];

  for (const [label, path, authed] of surfaces) {
    it(`${label}: a chunked body past the limit is 413 and the connection closes`, async () => {
      const headers: Record<string, string> = authed ? { authorization: `Bearer ${token}` } : { "x-knot-csrf": "1" };
      const reply = await upload(t.url, path, headers, { total: 64 * LIMIT });
      assert.equal(reply.status, 413, `${label}: ${reply.body}`);
      assert.match(reply.body, /PAYLOAD_TOO_LARGE/);
      assert.equal(reply.connection, "close");
      assert.equal((await request(`${t.url}/healthz`, null)).status, 200);
    });

    it(`${label}: a declared length past the limit is refused before the body arrives`, async () => {
      const headers: Record<string, string> = authed ? { authorization: `Bearer ${token}` } : { "x-knot-csrf": "1" };
      const reply = await upload(t.url, path, headers, { declared: 10 * 1024 * 1024 * 1024 });
      assert.equal(reply.status, 413, `${label}: ${reply.body}`);
      assert.match(reply.body, /PAYLOAD_TOO_LARGE/);
    });
  }

  it("nothing was created or run by the refused uploads", async () => {
    assert.equal((await request(`${t.url}/api/tools`, token)).body.tools.length, 0);
    const rows = await t.app.store.queryAudit({});
    assert.equal(rows.filter((row) => row.outcome === "ok").length, 0, JSON.stringify(rows));
  });
});
