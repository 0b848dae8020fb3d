/**
 * The 2026-07-28 answers on the wire (src/mcp/node-adapter.ts): a JSON answer is one body with its
 * length (no chunked stream), a call that reports progress streams its events before the result,
 * and a client that goes away mid-call still cancels it (the audit row says CANCELLED).
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { writeMcpPlugins } from "./helpers.ts";
import { modernCall, MODERN } from "./modern-client.ts";

const META = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };

function headersFor(token: string, name: string): Record<string, string> {
  return {
    "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`,
    "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name,
  };
}

/** One raw POST, so the answer's framing headers are seen as sent. */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/mcp`, { method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("2026-07-28 answers on node:http", () => {
  let t: TestApp;
  let token: string;
  let userId: string;

  before(async () => {
    const plugins = writeMcpPlugins();
    // A short deadline: the cancelled `hang` handler never settles, and closing waits for it.
    t = await startApp({ pluginsDir: plugins.dir, config: { handlerTimeoutMs: 3_000, plugins: { tools: { marker: plugins.marker } } } });
    const alice = await t.userWithToken("alice", { grants: ["knot.mcp"] });
    token = alice.token;
    userId = alice.user.id;
  });
  after(() => t.close());

  test("a JSON answer is one body with its content-length, not a chunked stream", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "open_echo", arguments: { message: "héllo" }, _meta: META } });
    const reply = await rawPost(t.url, headersFor(token, "open_echo"), body);
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers["content-type"]), /^application\/json/);
    assert.equal(reply.headers["transfer-encoding"], undefined);
    assert.equal(Number(reply.headers["content-length"]), Buffer.byteLength(reply.text));
    const message = JSON.parse(reply.text);
    assert.equal(message.id, 7);
    assert.equal(message.result.structuredContent.message, "héllo");
  });

  test("a call that reports progress streams it, then its result", async () => {
    const reply = await modernCall(t.url, token, "tools/call", { name: "chatty", arguments: {}, _meta: { progressToken: "p1" } });
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers.get("content-type")), /^text\/event-stream/);
    const progress = reply.messages.filter((m) => m.method === "notifications/progress");
    assert.deepEqual(progress.map((m) => [m.params.progressToken, m.params.progress]), [["p1", 1], ["p1", 2]]);
    assert.equal(reply.response.result.content[0].text, "chatty done");
    assert.equal(reply.messages.at(-1), reply.response, "the result comes last");
  });

  test("a client that goes away mid-call cancels it", async () => {
    const abort = new AbortController();
    const body = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "hang", arguments: {}, _meta: META } });
    const call = fetch(`${t.url}/mcp`, { method: "POST", headers: headersFor(token, "hang"), body, signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    abort.abort();
    await assert.rejects(call);
    const until = Date.now() + 5_000;
    let rows = await t.app.store.queryAudit({ userId, tool: "hang", limit: 1 });
    while (rows.length === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      rows = await t.app.store.queryAudit({ userId, tool: "hang", limit: 1 });
    }
    assert.equal(rows[0]?.outcome, "CANCELLED");
  });
});
