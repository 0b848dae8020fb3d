/**
 * One request id follows a call from its surface (MCP or /api) through the sandbox run and the
 * loopback request into the plugin handler: the server's log lines for the run and the handler's
 * failure carry it, and so does the loopback call's audit row.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseUserToolInput } from "../../src/tools/user-tool-input.ts";
import { startTracedApp, type LogLine, type TracedApp } from "./helpers.ts";

const CALLS_BOOM = `import { call } from "knot:plugin";\nexport default async () => call("trace", "boom", { n: 1 });\n`;

describe("the request id follows a call into the plugin handler", () => {
  let t: TracedApp;
  let alice: { id: string; token: string };

  before(async () => {
    t = await startTracedApp();
    alice = await t.userWithToken("alice", { grants: ["knot.mcp", "knot.tools.author"] });
    await t.app.store.createUserTool(alice.id, parseUserToolInput({ name: "calls_boom", code: CALLS_BOOM }));
  });
  after(() => t.app.close());

  const withId = (id: string, msg: string) => t.lines.filter((line: LogLine) => line.msg === msg && line.requestId === id);

  async function loopbackRow(id: string) {
    const rows = await t.app.store.queryAudit({ tool: "trace/boom", limit: 50 });
    return rows.find((row) => row.requestId === id);
  }

  it("MCP tools/call → sandbox run → loopback → handler failure, one id throughout", async () => {
    const clientId = "mcp-trace-0001";
    const client = new Client({ name: "trace-test", version: "1.0.0" }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${alice.token}`, "x-request-id": clientId } },
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "calls_boom", arguments: {} });
      assert.equal(result.isError, true, JSON.stringify(result));
    } finally {
      await client.close();
    }
    // The server never adopts a client's id: it mints its own and keeps the client's beside it.
    const mcpRow = (await t.app.store.queryAudit({ tool: "user:alice/calls_boom", limit: 10 })).find((r) => r.clientRequestId === clientId);
    assert.equal(mcpRow?.surface, "mcp");
    const id = mcpRow!.requestId!;
    assert.match(id, /^[0-9a-f-]{36}$/, "the server's own id");
    assert.equal(withId(id, "tool run").length, 1, "the sandbox run is logged with the id");
    assert.equal(withId(id, "tool run")[0]!.outcome, "LOOPBACK_FAILED");
    const failure = withId(id, "plugin handler failed");
    assert.equal(failure.length, 1, "the handler failure is logged with the id");
    assert.equal(failure[0]!.plugin, "trace");
    assert.match(String((failure[0]!.error as { message?: string }).message), /boom: internal detail/, "the detail stays in the log");
    assert.equal(withId(id, "handler call")[0]?.outcome, "HANDLER_FAILED");
    const loopback = t.lines.find((line) => line.msg === "http request" && line.path === "/plugins/trace/boom" && line.requestId === id);
    assert.equal(loopback?.status, 500, "the loopback request itself was adopted under the same id");
    const row = await loopbackRow(id);
    assert.ok(row, "the loopback call's audit row carries the id");
    assert.equal(row.surface, "loopback");
    assert.equal(row.outcome, "HANDLER_FAILED");
    assert.equal(row.clientRequestId, undefined, "the loopback's id is the run's, not a client's");
  });

  it("a client's x-request-id is kept as clientRequestId and never becomes the request id", async () => {
    const shared = "same-id-for-two-users";
    const bob = await t.userWithToken("bob", { grants: ["knot.tools.author"] });
    const ids: string[] = [];
    for (const token of [alice.token, bob.token]) {
      const res = await fetch(`${t.url}/api/tools/run`, {
        method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-request-id": shared },
        body: JSON.stringify({ code: "export default () => 1;" }),
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      ids.push(res.headers.get("x-request-id")!);
    }
    assert.ok(ids.every((id) => id !== shared) && ids[0] !== ids[1], `server ids ${ids.join(", ")}`);
    const rows = (await t.app.store.queryAudit({ tool: "draft:draft", limit: 10 })).filter((r) => r.clientRequestId === shared);
    assert.equal(rows.length, 2);
    assert.deepEqual(new Set(rows.map((r) => r.requestId)), new Set(ids));
  });

  it("/api/tools/run: the server's generated id is the one the loopback and the handler see", async () => {
    const res = await fetch(`${t.url}/api/tools/run`, {
      method: "POST", headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: JSON.stringify({ code: CALLS_BOOM }),
    });
    const body = (await res.json()) as { ok: boolean; error?: { code: string } };
    assert.equal(body.ok, false);
    assert.equal(body.error?.code, "LOOPBACK_FAILED");
    const id = res.headers.get("x-request-id")!;
    assert.match(id, /^[0-9a-f-]{36}$/, "a UUID when the caller sent none");
    assert.equal(withId(id, "tool run").length, 1);
    assert.equal(withId(id, "plugin handler failed").length, 1);
    assert.equal((await loopbackRow(id))?.outcome, "HANDLER_FAILED");
  });
});
