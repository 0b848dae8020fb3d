/**
 * The edges of `/mcp` a client finds by probing (src/mcp/transport-rules.ts, mcp-server.ts, sdk.ts):
 * methods the transport does not serve, versions it does not speak, an Accept header that rules
 * out its answers, params the SDK's schema refuses, cursors it never issued, the prompt and
 * resource methods its capabilities imply, and error answers that keep the request's id. Both
 * revisions, through the conformance plugin's tools (one declares an Mcp-Param header).
 */
import assert from "node:assert/strict";
import http from "node:http";
import { gzipSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { startConformanceTarget } from "./conformance-harness.ts";
import { INITIALIZE } from "./helpers.ts";

const MODERN = "2026-07-28";
const META = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly json: any;
}

/** One raw request (any method, any headers), its answer parsed (JSON, or the last SSE data line). */
function send(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        const data = text.split("\n").filter((line) => line.startsWith("data:")).at(-1)?.slice(5);
        let json: unknown = null;
        try {
          json = JSON.parse(data ?? text);
        } catch {
          // not JSON: the assertions say what was expected
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body));
  });
}

const BOTH = "application/json, text/event-stream";

function modern(url: string, method: string, params: Record<string, unknown>, id: number, headers: Record<string, string> = {}): Promise<Reply> {
  const named = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  const name: Record<string, string> = named === undefined ? {} : { "mcp-name": named };
  return send(url, "POST", { accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": method, ...name, ...headers }, { jsonrpc: "2.0", id, method, params: { ...params, _meta: META } });
}

describe("/mcp edges, both revisions", () => {
  let target: Awaited<ReturnType<typeof startConformanceTarget>>;
  let url: string;
  let session: string;

  const legacy = (method: string, params: Record<string, unknown>, id: number): Promise<Reply> =>
    send(url, "POST", { accept: BOTH, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }, { jsonrpc: "2.0", id, method, params });

  before(async () => {
    target = await startConformanceTarget();
    url = target.url;
    const opened = await send(url, "POST", { accept: BOTH }, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: "2025-11-25" } });
    assert.equal(opened.status, 200);
    session = String(opened.headers["mcp-session-id"]);
    await send(url, "POST", { accept: BOTH, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }, { jsonrpc: "2.0", method: "notifications/initialized" });
  });
  after(() => target.close());

  test("a cursor that is not a string, or one the server never issued, is invalid params (-32602), not an internal error", async () => {
    for (const cursor of [123, null, {}, "garbage"]) {
      const answers = [await modern(url, "tools/list", { cursor }, 11), await legacy("tools/list", { cursor }, 12)];
      for (const [index, reply] of answers.entries()) {
        const revision = index === 0 ? MODERN : "2025-11-25";
        assert.equal(reply.json?.error?.code, -32602, `${revision}, cursor ${JSON.stringify(cursor)}: ${JSON.stringify(reply.json)}`);
        assert.equal(reply.json.id, index === 0 ? 11 : 12);
        assert.doesNotMatch(reply.json.error.message, /internal|\n|"code"/i, "one line a person reads, not the schema library's report");
      }
    }
    for (const method of ["prompts/list", "resources/list", "resources/templates/list"]) {
      assert.equal((await modern(url, method, { cursor: "x" }, 13)).json?.error?.code, -32602, method);
    }
    assert.match((await modern(url, "tools/list", { cursor: 5 }, 15)).json.error.message, /^Invalid params for tools\/list: params\.cursor: expected string, received number$/);
    assert.equal((await legacy("logging/setLevel", { level: "bogus" }, 16)).json?.error?.code, -32602);
    const plain = await modern(url, "tools/list", {}, 14);
    assert.ok(Array.isArray(plain.json?.result?.tools), "no cursor: the one page");
  });

  test("the prompt and resource methods the capabilities imply answer 'not found', not 'method not found'", async () => {
    const prompt = await modern(url, "prompts/get", { name: "nope" }, 21);
    assert.equal(prompt.json?.error?.code, -32602, JSON.stringify(prompt.json));
    assert.match(prompt.json.error.message, /unknown prompt "nope"/);
    const resource2026 = await modern(url, "resources/read", { uri: "file:///nope" }, 22);
    assert.equal(resource2026.json?.error?.code, -32602, `2026-07-28 names a missing resource -32602: ${JSON.stringify(resource2026.json)}`);
    // The SDK answers -32602 in 2025-11-25 too (clients of both accept it); the URI asked for is named.
    const resource2025 = await legacy("resources/read", { uri: "file:///nope" }, 23);
    assert.equal(resource2025.json?.error?.code, -32602, JSON.stringify(resource2025.json));
    assert.match(resource2025.json.error.message, /file:\/\/\/nope/);
    assert.equal((await legacy("prompts/get", { name: "nope" }, 24)).json?.error?.code, -32602);
  });

  test("refusals before the SDK keep the request's id: a missing or different Mcp-Param header, a message nested too deep", async () => {
    const call = { name: "test_custom_header", arguments: { region: "us-west1" } };
    for (const headers of [{}, { "mcp-param-region": "eu" }] as Record<string, string>[]) {
      const reply = await modern(url, "tools/call", call, 31, headers);
      assert.equal(reply.status, 400);
      assert.equal(reply.json?.error?.code, -32020);
      assert.equal(reply.json.id, 31, `the id is kept (${JSON.stringify(headers)})`);
    }
    assert.equal((await modern(url, "tools/call", call, 32, { "mcp-param-region": "us-west1" })).json?.result?.content?.[0]?.text, "Region: us-west1");
    let deep: unknown = "leaf";
    for (let i = 0; i < 200; i += 1) deep = { deep };
    const tooDeep = await modern(url, "tools/list", { extra: deep }, 33);
    assert.equal(tooDeep.status, 400);
    assert.equal(tooDeep.json?.error?.code, -32602);
    assert.equal(tooDeep.json.id, 33);
  });

  test("in 2026-07-28 execute_tool does not run a tool that mirrors its arguments in Mcp-Param headers (they would bypass any gateway reading them)", async () => {
    const inner = { name: "test_custom_header", arguments: { region: "eu" } };
    const refused = await modern(url, "tools/call", { name: "execute_tool", arguments: inner }, 35);
    assert.equal(refused.json?.result?.isError, true, JSON.stringify(refused.json));
    assert.match(refused.json.result.content[0].text, /Mcp-Param-Region.*call it directly/);
    assert.doesNotMatch(refused.json.result.content[0].text, /Region: eu/);
    // 2025-11-25 has no such headers (a direct call carries none either): nothing to get past.
    assert.equal((await legacy("tools/call", { name: "execute_tool", arguments: inner }, 36)).json?.result?.content?.[0]?.text, "Region: eu");
    assert.equal((await modern(url, "tools/call", { name: "execute_tool", arguments: { name: "test_simple_text", arguments: {} } }, 37)).json?.result?.isError, undefined, "other tools still run through it");
  });

  test("a protocol version the server does not speak is -32022 with what it supports, whatever else the request lacks", async () => {
    for (const version of ["2099-01-01", "banana"]) {
      const bare = await send(url, "POST", { accept: BOTH, "mcp-protocol-version": version }, { jsonrpc: "2.0", id: 41, method: "tools/list", params: {} });
      assert.equal(bare.status, 400, version);
      assert.equal(bare.json?.error?.code, -32022, `${version}: ${JSON.stringify(bare.json)}`);
      assert.deepEqual(bare.json.error.data.supported, [MODERN]);
      assert.equal(bare.json.error.data.requested, version);
      assert.equal(bare.json.id, 41);
      const inSession = await send(url, "POST", { accept: BOTH, "mcp-session-id": session, "mcp-protocol-version": version }, { jsonrpc: "2.0", id: 42, method: "tools/list", params: {} });
      assert.equal(inSession.json?.error?.code, -32022, `${version} inside a session`);
    }
    assert.equal((await legacy("tools/list", {}, 43)).json?.result?.tools?.length > 0, true, "a served version still answers");
  });

  test("methods the transport does not serve: 405 with Allow (2026-07-28 is POST only; without a session there is no GET stream)", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const reply = await send(url, method, { accept: "text/event-stream", "mcp-protocol-version": MODERN });
      assert.equal(reply.status, 405, `${method} with the 2026 header`);
      assert.equal(reply.headers.allow, "POST");
      const withSession = await send(url, method, { accept: "text/event-stream", "mcp-protocol-version": MODERN, "mcp-session-id": session });
      assert.equal(withSession.status, 405, `${method} with the 2026 header and a session`);
    }
    const probe = await send(url, "GET", { accept: "text/event-stream" });
    assert.equal(probe.status, 405, "a GET without a session: no stream to open");
    assert.equal(probe.headers.allow, "GET, POST, DELETE");
    assert.equal((await send(url, "PATCH", {})).status, 405);
    assert.equal((await send(url, "DELETE", {})).status, 400, "DELETE names the session it ends");
    // A 2025 session's GET stream still opens: transport.test.ts (this target's proxy holds headers until the first byte).
  });

  test("a 2026-07-28 POST whose Accept rules out JSON or an event stream is 406 (wildcards count); a compressed body is 415", async () => {
    for (const accept of ["application/json", "text/event-stream", "text/html", "application/json, text/event-stream;q=0"]) {
      const reply = await modern(url, "tools/list", {}, 51, { accept });
      assert.equal(reply.status, 406, accept);
      assert.equal(reply.json?.id, 51);
    }
    const none = await send(url, "POST", { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" }, { jsonrpc: "2.0", id: 52, method: "tools/list", params: { _meta: META } });
    assert.equal(none.status, 406, "no Accept header");
    const body = gzipSync(JSON.stringify({ jsonrpc: "2.0", id: 54, method: "tools/list", params: { _meta: META } }));
    const gzipped = await send(url, "POST", { accept: BOTH, "mcp-protocol-version": MODERN, "mcp-method": "tools/list", "content-encoding": "gzip", "content-type": "application/json" }, body);
    assert.equal(gzipped.status, 415, "a compressed body is refused as such, not as unparseable JSON");
    assert.equal(gzipped.json?.error?.data?.code, "UNSUPPORTED_MEDIA_TYPE");
    assert.equal((await legacy("tools/list", {}, 55)).status, 200);
    for (const accept of ["*/*", "application/*, text/*", "application/json;q=0.9, text/event-stream"]) {
      assert.equal((await modern(url, "tools/list", {}, 53, { accept })).status, 200, accept);
    }
  });
});
