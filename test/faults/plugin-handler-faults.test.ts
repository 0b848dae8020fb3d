/**
 * Fault: a trusted plugin's handler misbehaves — throws (an Error, `null`, a rejected string),
 * hangs past its deadline, fails after its deadline, or answers a value that is not JSON (a BigInt,
 * a cycle, a throwing toJSON, returnObject of a BigInt). Over HTTP and as an MCP plugin tool, each
 * is a coded error with no detail from the handler, it is audited, nothing is left unhandled, and
 * the server keeps serving.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { connect } from "../mcp/helpers.ts";
import { writeFaultyPlugin } from "./faulty-plugin.ts";

const DEADLINE_MS = 300;
const ERROR_META = "knot-tools/errorCode";
const LEAKS = /secret|passwd|shadow|db\.internal|\/var\/|too late|at .*\(|\.js:\d+/;

const FAULTS: ReadonlyArray<{ fn: string; code: string; status: number; message: RegExp }> = [
  { fn: "throws", code: "HANDLER_FAILED", status: 500, message: /^handler failed$/ },
  { fn: "throws_null", code: "HANDLER_FAILED", status: 500, message: /^handler failed$/ },
  { fn: "rejects_later", code: "HANDLER_FAILED", status: 500, message: /^handler failed$/ },
  { fn: "hangs", code: "HANDLER_TIMEOUT", status: 504, message: new RegExp(`did not finish within ${DEADLINE_MS} ms`) },
  { fn: "fails_after_deadline", code: "HANDLER_TIMEOUT", status: 504, message: new RegExp(`did not finish within ${DEADLINE_MS} ms`) },
  { fn: "bigint", code: "HANDLER_FAILED", status: 500, message: /^handler failed$/ },
  { fn: "cycle", code: "HANDLER_FAILED", status: 500, message: /^handler failed$/ },
  { fn: "bad_tojson", code: "HANDLER_FAILED", status: 500, message: /^handler failed$/ },
  // knot:tool refuses what JSON cannot carry, as in a user tool (sandbox/guest/output-rules.ts): the author's error, not a crash.
  { fn: "return_object_bigint", code: "TOOL_ERROR", status: 422, message: /^returnObject: the value is not JSON-serialisable$/ },
];

describe("plugin handler faults", () => {
  let t: TestApp;
  let token: string;
  let client: Client;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  before(async () => {
    process.on("unhandledRejection", onUnhandled);
    process.on("uncaughtException", onUnhandled);
    const root = tempDir();
    writeFaultyPlugin(root);
    t = await startApp({ pluginsDir: root, config: { handlerTimeoutMs: DEADLINE_MS } });
    token = (await t.userWithToken("carol", { grants: ["knot.mcp"] })).token;
    client = (await connect(t.url, token)).client;
  });
  after(async () => {
    await client.close();
    await t.close();
    process.off("unhandledRejection", onUnhandled);
    process.off("uncaughtException", onUnhandled);
  });

  const stillServing = async () => {
    assert.equal((await request(`${t.url}/healthz`, null)).status, 200);
    assert.deepEqual((await request(`${t.url}/plugins/faulty/ok`, token)).body, { fine: true, by: "carol" });
    assert.deepEqual((await client.callTool({ name: "f_ok", arguments: {} })).structuredContent, { fine: true, by: "carol" });
  };

  for (const fault of FAULTS) {
    it(`${fault.fn}: ${fault.code} over HTTP and MCP, audited, and the server goes on`, async () => {
      const http = await request(`${t.url}/plugins/faulty/${fault.fn}`, token);
      assert.equal(http.status, fault.status, JSON.stringify(http.body));
      assert.equal(http.body.code, fault.code);
      assert.match(http.body.error, fault.message);
      assert.doesNotMatch(JSON.stringify(http.body), LEAKS);

      const mcp = await client.callTool({ name: `f_${fault.fn}`, arguments: {} });
      assert.equal(mcp.isError, true, JSON.stringify(mcp));
      assert.equal((mcp._meta as Record<string, unknown>)[ERROR_META], fault.code);
      assert.match((mcp.content as { text: string }[])[0]!.text, fault.message);
      assert.doesNotMatch(JSON.stringify(mcp), LEAKS);

      const httpRows = await t.app.store.queryAudit({ tool: `faulty/${fault.fn}` });
      assert.deepEqual(httpRows.map((r) => [r.surface, r.outcome]), [["http", fault.code]]);
      const mcpRows = await t.app.store.queryAudit({ tool: `f_${fault.fn}` });
      assert.deepEqual(mcpRows.map((r) => [r.surface, r.outcome]), [["mcp", fault.code]]);
      await stillServing();
    });
  }

  it("a returned function is not JSON: handler failed, not a crash", async () => {
    const http = await request(`${t.url}/plugins/faulty/returns_function`, token);
    assert.equal(http.status, 500);
    assert.deepEqual(http.body, { error: "handler failed", code: "HANDLER_FAILED" });
    const mcp = await client.callTool({ name: "f_returns_function", arguments: {} });
    assert.equal(mcp.isError, true);
    assert.equal((mcp._meta as Record<string, unknown>)[ERROR_META], "HANDLER_FAILED");
    await stillServing();
  });

  it("many faulty calls at once leave nothing unhandled and the server answering", async () => {
    const calls = FAULTS.flatMap((fault) => [
      request(`${t.url}/plugins/faulty/${fault.fn}`, token).then((r) => r.body.code as string),
      client.callTool({ name: `f_${fault.fn}`, arguments: {} }).then((r) => (r._meta as Record<string, unknown>)[ERROR_META] as string),
    ]);
    assert.deepEqual(await Promise.all(calls), FAULTS.flatMap((fault) => [fault.code, fault.code]));
    // fails_after_deadline throws ~2 deadlines after it started: wait for it, then look.
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.deepEqual(unhandled, []);
    await stillServing();
  });
});
