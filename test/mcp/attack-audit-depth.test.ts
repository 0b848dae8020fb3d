/**
 * Attack family: calls that leave no audit row, and audit rows that grow without bound (issue 10
 * items 3, 4 and 11). Threat: arguments nested thousands deep overflowed the recursive canonical
 * JSON of the audit hash, so the row was dropped after the tool had already run; execute_tool's
 * arguments were stored unmasked; a huge client name or tool name was copied into every row.
 * Guarantee: nesting deeper than 64 is refused with INVALID_ARGUMENT before any tool code runs,
 * and the refusal is audited; execute_tool's rows mask by the target tool's flags (everything when
 * the target is unknown); client names and tool names are clamped and every row stays under the
 * row cap; the chain verifies.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MAX_AUDIT_ROW_BYTES } from "../../src/audit/audit-bounds.ts";
import { ERROR_CODE_META } from "../../src/mcp/results.ts";
import { canonicalJson, verifyAuditChain } from "../../src/store/audit-hash.ts";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, markerLines, saveUserTool, writeMcpPlugins } from "./helpers.ts";

/** `{"a":{"a":…{"a":1}}}`, `depth` objects deep. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < depth; i += 1) value = { a: value };
  return value;
}

/** The same as JSON text: JSON.stringify itself overflows the stack a few thousand levels down. */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** A raw JSON-RPC session on /mcp, to send bodies no JSON.stringify could produce. */
async function rawSession(url: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
  const init = await fetch(`${url}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) });
  await init.text();
  const session = { ...headers, "mcp-session-id": init.headers.get("mcp-session-id")! };
  await (await fetch(`${url}/mcp`, { method: "POST", headers: session, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text();
  return async (id: number, tool: string, argsText: string): Promise<{ error?: { message: string; data?: { code?: string } } }> => {
    const res = await fetch(`${url}/mcp`, { method: "POST", headers: session, body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${argsText}}}` });
    const text = await res.text();
    const data = /^data: (.*)$/m.exec(text);
    return asRefusal(JSON.parse(data ? data[1]! : text));
  };
}

/** The same call as a stateless 2026-07-28 request (no session; `_meta` envelope and routing headers). */
async function modernCall(url: string, token: string, id: number, tool: string, argsText: string): Promise<{ status: number; answer: { error?: { message: string; data?: { code?: string } } } }> {
  const meta = JSON.stringify({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} });
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool },
    body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${argsText},"_meta":${meta}}}`,
  });
  const text = await res.text();
  const data = /^data: (.*)$/m.exec(text);
  return { status: res.status, answer: res.status < 500 ? asRefusal(JSON.parse(data ? data[1]! : text)) : {} };
}

/**
 * A refusal as `{error: {message, data: {code}}}` whether it came as a JSON-RPC error or, for
 * argument validation (SEP-1303), as an `isError` tool result carrying its code in `_meta`.
 */
function asRefusal(answer: any): { error?: { message: string; data?: { code?: string } } } {
  const result = answer?.result;
  if (answer?.error || !result?.isError) return answer;
  return { error: { message: String(result.content?.[0]?.text ?? ""), data: { code: result._meta?.[ERROR_CODE_META] } } };
}

const ECHO_TOOL = `export default (r) => ({ got: typeof r.params.deep, summary: "echoed" });`;

describe("attack: calls that leave no audit row (MCP)", () => {
  let t: TestApp;
  let marker: string;
  let alice: { user: { id: string }; token: string };
  let client: Client;

  before(async () => {
    const plugins = writeMcpPlugins();
    marker = plugins.marker;
    t = await startApp({ pluginsDir: plugins.dir, config: { plugins: { tools: { marker } } } });
    alice = await t.userWithToken("alice", { grants: ["knot.mcp", "knot.tools.author", "knot.tools.run"] });
    await saveUserTool(t, alice.user.id, { name: "user_echo", code: ECHO_TOOL, parameters: [{ name: "deep", type: "list" }] });
    client = (await connect(t.url, alice.token, "depth-client")).client;
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  const rowsOf = async (tool: string) => (await t.app.store.queryAudit({ userId: alice.user.id, tool, limit: 50 }));

  for (const depth of [65, 1_500, 20_000, 150_000]) {
    it(`plugin tool arguments ${depth} deep are refused with INVALID_ARGUMENT before the handler runs, and audited`, async () => {
      const before = markerLines(marker).length;
      const call = await rawSession(t.url, alice.token);
      const answer = await call(depth, "greet", `{"deep":${nestedText(depth)}}`);
      assert.equal(answer.error?.data?.code, "INVALID_ARGUMENT", JSON.stringify(answer).slice(0, 300));
      assert.match(answer.error!.message, /nested more than 64 levels/);
      assert.equal(markerLines(marker).length, before, "the handler never ran");
      const [row] = await rowsOf("greet");
      assert.equal(row?.outcome, "INVALID_ARGUMENT");
      assert.ok(JSON.stringify(row?.args).includes("[nested too deep]"), "the row keeps the shape, cut with a marker");
    });
  }

  for (const depth of [65, 20_000, 150_000]) {
    it(`2026-07-28: plugin tool arguments ${depth} deep are refused with INVALID_ARGUMENT, not a 500, and audited with their shape`, async () => {
      const before = markerLines(marker).length;
      const { status, answer } = await modernCall(t.url, alice.token, depth, "greet", `{"deep":${nestedText(depth)}}`);
      assert.ok(status < 500, `status ${status}`);
      assert.equal(answer.error?.data?.code, "INVALID_ARGUMENT", JSON.stringify(answer).slice(0, 300));
      assert.equal(markerLines(marker).length, before, "the handler never ran");
      const [row] = await rowsOf("greet");
      assert.equal(row?.outcome, "INVALID_ARGUMENT");
      assert.ok(JSON.stringify(row?.args).includes("[nested too deep]"), "the row keeps the shape, cut with a marker");
    });
  }

  it("2026-07-28: a deep value outside the arguments (in params or _meta) answers no 500 and leaves the server up", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    for (const params of [`{"name":"greet","arguments":{},"extra":${deep},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
      `{"name":"greet","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"x":${deep}}}`]) {
      const res = await fetch(`${t.url}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "greet" },
        body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":${params}}`,
      });
      assert.ok(res.status < 500, `status ${res.status}`);
      await res.arrayBuffer();
    }
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
    // A deep array for the tool's name: refused 400 and audited (naming it as text overflowed the stack).
    const before = (await rowsOf("[not a name]")).length;
    const named = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" },
      body: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":${deep},"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
    });
    assert.equal(named.status, 400);
    await named.arrayBuffer();
    assert.equal((await rowsOf("[not a name]")).length, before + 1);
  });

  it("64 deep is still accepted (the limit is not off by one)", async () => {
    const result = await client.callTool({ name: "greet", arguments: { deep: nested(63) } });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    assert.equal((await rowsOf("greet"))[0]?.outcome, "ok");
  });

  it("a user tool with deep list arguments is refused before a run starts, and audited", async () => {
    const call = await rawSession(t.url, alice.token);
    const answer = await call(3, "user_echo", `{"deep":[${nestedText(1_500)}]}`);
    assert.match(answer.error?.message ?? "", /nested more than 64/);
    assert.equal((await rowsOf("user:alice/user_echo"))[0]?.outcome, "INVALID_ARGUMENT");
  });

  it("execute_tool with deep arguments is refused and audited", async () => {
    const call = await rawSession(t.url, alice.token);
    const answer = await call(7, "execute_tool", `{"name":"greet","arguments":${nestedText(50_000)}}`);
    assert.match(answer.error?.message ?? "", /nested more than 64/);
    assert.equal((await rowsOf("execute_tool"))[0]?.outcome, "INVALID_ARGUMENT");
  });

  it("execute_tool masks the target tool's secret and personal arguments", async () => {
    await client.callTool({ name: "execute_tool", arguments: { name: "login", arguments: { email: "alice@example.com", password: "hunter2-exec" } } });
    const [outer] = await rowsOf("execute_tool");
    const [inner] = await rowsOf("login");
    for (const row of [outer, inner]) {
      const text = JSON.stringify(row?.args);
      assert.ok(!text.includes("hunter2-exec") && !text.includes("alice@example.com"), `no raw secret in ${row?.tool}: ${text}`);
    }
    const args = outer!.args as { name: string; arguments: Record<string, string> };
    assert.equal(args.name, "login", "the target's name stays readable");
    assert.match(args.arguments.password!, /^masked:/);
    assert.match(args.arguments.email!, /^masked:/);
  });

  it("execute_tool of an unknown or hidden tool masks everything under arguments", async () => {
    for (const name of ["no_such_tool", "ops_report"]) {
      await assert.rejects(client.callTool({ name: "execute_tool", arguments: { name, arguments: { token: "raw-token-value", note: "raw-note" } } }));
      const [outer] = await rowsOf("execute_tool");
      const text = JSON.stringify(outer?.args);
      assert.ok(!text.includes("raw-token-value") && !text.includes("raw-note"), text);
    }
  });

  it("execute_tool's arguments are masked even when the arguments are not an object", async () => {
    await client.callTool({ name: "execute_tool", arguments: { name: "login", arguments: "password=hunter3" } }).catch(() => {});
    const text = JSON.stringify((await rowsOf("execute_tool"))[0]?.args);
    assert.ok(!text.includes("hunter3"), text);
  });

  it("a 900 KB client name is clamped in the row, and no row passes the row cap", async () => {
    const hugeName = "n".repeat(900_000);
    const big = new Client({ name: hugeName, version: "v".repeat(50_000) }, { capabilities: {} });
    await big.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice.token}` } } }));
    try {
      for (let i = 0; i < 3; i += 1) await big.callTool({ name: "greet", arguments: { pad: "x".repeat(200_000), list: Array.from({ length: 5_000 }, (_, n) => n) } });
    } finally {
      await big.close();
    }
    const rows = await rowsOf("greet");
    for (const row of rows.slice(0, 3)) {
      assert.ok(row.client !== null && row.client.length <= 200, `client clamped to ${row.client?.length}`);
      assert.match(row.client!, /…\[\d+ more chars\]$/, "the clamp is marked");
      const size = Buffer.byteLength(canonicalJson(row));
      assert.ok(size <= MAX_AUDIT_ROW_BYTES, `row of ${size} bytes`);
      assert.equal(row.outcome, "ok");
    }
  });

  it("arguments wide rather than deep (50,000 members) are cut with a marker, under the row cap", async () => {
    const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    const result = await client.callTool({ name: "greet", arguments: wide });
    assert.equal(result.isError, undefined);
    const [row] = await rowsOf("greet");
    assert.ok(Buffer.byteLength(canonicalJson(row)) <= MAX_AUDIT_ROW_BYTES);
    assert.match(String((row!.args as Record<string, unknown>)["…"]), /more members/);
  });

  it("a tool name of 100 KB is clamped in its row", async () => {
    await assert.rejects(client.callTool({ name: "t".repeat(100_000), arguments: {} }));
    const [row] = await t.app.store.queryAudit({ userId: alice.user.id, outcome: "UNKNOWN_TOOL", limit: 1 });
    assert.ok(row && row.tool.length <= 200, `tool name of ${row?.tool.length}`);
  });

  it("the chain still verifies", async () => {
    const verdict = await verifyAuditChain(t.app.store.iterateAudit());
    assert.equal(verdict.ok, true, JSON.stringify(verdict));
  });
});
