/**
 * Both MCP revisions on one /mcp: a 2026-07-28 client discovers, lists and calls without initialize
 * or a session (each request stands alone); a 2025-11-25 client keeps its session. Input required
 * (ask) works for both, with sealed request state bound to the user and the tool.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { CONFORMANCE_PLUGIN } from "./conformance-harness.ts";
import { connect, saveUserTool, USER_TOOLS } from "./helpers.ts";
import { modernCall, MODERN } from "./modern-client.ts";

const ASK_NAME = "test_input_required_result_elicitation";
const ASK_TOOL = `import { ask, returnString } from "knot:tool";
export default async function (request) {
  const answer = await ask("Which colour?", { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] });
  // The answers ride in a reserved argument the tool never sees among its params.
  returnString((answer ? "colour: " + answer.colour : "declined") + "; params: " + JSON.stringify(Object.keys(request.params)));
}`;

describe("MCP 2026-07-28 beside 2025-11-25", () => {
  let t: TestApp;
  let alice: string;
  let bob: string;

  before(async () => {
    const plugins = tempDir("knot-rev-plugins-");
    fs.cpSync(CONFORMANCE_PLUGIN, path.join(plugins, "conformance"), { recursive: true });
    t = await startApp({ pluginsDir: plugins });
    const a = await t.userWithToken("alice", { grants: ["knot.mcp"] });
    const b = await t.userWithToken("bob", { grants: ["knot.mcp"] });
    alice = a.token;
    bob = b.token;
    await saveUserTool(t, a.user.id, { name: "u_echo", code: USER_TOOLS.echo, parameters: [{ name: "text", type: "string", required: true }] });
    await saveUserTool(t, a.user.id, { name: "u_ask", code: ASK_TOOL });
  });
  after(() => t.close());

  test("server/discover, tools/list and tools/call need no initialize and open no session", async () => {
    const discover = await modernCall(t.url, alice, "server/discover");
    assert.equal(discover.status, 200);
    assert.ok(discover.response.result.supportedVersions.includes(MODERN));
    assert.ok(discover.response.result.capabilities.tools, "tools are advertised");
    assert.equal(discover.headers.get("mcp-session-id"), null);
    const listed = await modernCall(t.url, alice, "tools/list");
    const names = listed.response.result.tools.map((tool: { name: string }) => tool.name);
    assert.ok(names.includes("u_echo") && names.includes("test_simple_text"), names.join(","));
    assert.equal(typeof listed.response.result.ttlMs, "number", "cache hints on a 2026 list");
    const bobNames = (await modernCall(t.url, bob, "tools/list")).response.result.tools.map((tool: { name: string }) => tool.name);
    assert.ok(!bobNames.includes("u_echo"), "per user: bob does not see alice's private tool");
    const called = await modernCall(t.url, alice, "tools/call", { name: "u_echo", arguments: { text: "modern" } });
    assert.deepEqual(called.response.result.structuredContent, { echo: "modern", summary: "echoed" });
    assert.equal(called.response.result.resultType, "complete");
  });

  test("arguments that are not an object, or do not match, are isError tool results (SEP-1303)", async () => {
    for (const args of ["text", [1, 2], 7]) {
      const reply = await modernCall(t.url, alice, "tools/call", { name: "u_echo", arguments: args });
      const outcome = reply.response.result ?? reply.response.error;
      assert.doesNotMatch(JSON.stringify(outcome), /invalid_type|"path":|zod/i, "never a raw schema-library dump");
      if (reply.response.result) {
        assert.equal(reply.response.result.isError, true);
        assert.equal(reply.response.result._meta["knot-tools/errorCode"], "INVALID_ARGUMENT");
      } else {
        assert.equal(reply.response.error.code, -32602);
      }
    }
    const missing = await modernCall(t.url, alice, "tools/call", { name: "u_echo", arguments: {} });
    assert.equal(missing.response.result.isError, true);
    assert.equal(missing.response.result._meta["knot-tools/where"], "text");
  });

  test("no log notifications unless the request asked for a level", async () => {
    const quiet = await modernCall(t.url, alice, "tools/call", { name: "test_logging_tool", arguments: {} });
    assert.equal(quiet.messages.filter((m) => m.method === "notifications/message").length, 0);
    const loud = await modernCall(t.url, alice, "tools/call", { name: "test_logging_tool", arguments: {} }, { logLevel: "info" });
    assert.equal(loud.messages.filter((m) => m.method === "notifications/message").length, 3);
    const { client } = await connect(t.url, alice);
    const logs: unknown[] = [];
    client.fallbackNotificationHandler = async (n) => void (n.method === "notifications/message" && logs.push(n));
    await client.callTool({ name: "test_logging_tool", arguments: {} });
    assert.equal(logs.length, 0, "2025: none before logging/setLevel");
    await client.setLoggingLevel("info");
    await client.callTool({ name: "test_logging_tool", arguments: {} });
    assert.equal(logs.length, 3);
    await client.close();
  });

  test("ask: input required with sealed state; the answer completes the call; tampered or foreign state is refused", async () => {
    const capabilities = { elicitation: {} };
    const first = await modernCall(t.url, alice, "tools/call", { name: ASK_NAME, arguments: {} }, { capabilities });
    const asked = first.response.result;
    assert.equal(asked.resultType, "input_required");
    assert.equal(asked.inputRequests.user_name.method, "elicitation/create");
    assert.equal(typeof asked.requestState, "string");
    const answer = { user_name: { action: "accept", content: { name: "Ada" } } };
    const done = await modernCall(t.url, alice, "tools/call", { name: ASK_NAME, arguments: {}, inputResponses: answer, requestState: asked.requestState }, { capabilities });
    assert.deepEqual(done.response.result.content, [{ type: "text", text: "Hello, Ada!" }]);
    // An answer without the state of a round that asked is no answer: asked again.
    const unasked = await modernCall(t.url, alice, "tools/call", { name: ASK_NAME, arguments: {}, inputResponses: answer }, { capabilities });
    assert.equal(unasked.response.result.resultType, "input_required");
    const tampered = asked.requestState.slice(0, -4) + (asked.requestState.endsWith("AAAA") ? "BBBB" : "AAAA");
    const refused = await modernCall(t.url, alice, "tools/call", { name: ASK_NAME, arguments: {}, inputResponses: answer, requestState: tampered }, { capabilities });
    assert.equal(refused.response.error.code, -32602);
    const otherUser = await modernCall(t.url, bob, "tools/call", { name: ASK_NAME, arguments: {}, inputResponses: answer, requestState: asked.requestState }, { capabilities });
    assert.equal(otherUser.response.error?.code, -32602, "alice's state is refused for bob");
    const otherTool = await modernCall(t.url, alice, "tools/call", { name: "test_input_required_result_tampered_state", arguments: {}, inputResponses: answer, requestState: asked.requestState }, { capabilities });
    assert.equal(otherTool.response.error?.code, -32602, "a state is refused for another tool");
  });

  test("a sandboxed user tool's ask() ends the run as input required; it runs again with the answer", async () => {
    const capabilities = { elicitation: {} };
    const first = await modernCall(t.url, alice, "tools/call", { name: "u_ask", arguments: {} }, { capabilities });
    const asked = first.response.result;
    assert.equal(asked.resultType, "input_required", JSON.stringify(first.response));
    const [key] = Object.keys(asked.inputRequests);
    assert.equal(asked.inputRequests[key!].params.message, "Which colour?");
    const done = await modernCall(t.url, alice, "tools/call", {
      name: "u_ask", arguments: {}, inputResponses: { [key!]: { action: "accept", content: { colour: "teal" } } }, requestState: asked.requestState,
    }, { capabilities });
    assert.deepEqual(done.response.result.content, [{ type: "text", text: "colour: teal; params: []" }]);
    const noCapability = await modernCall(t.url, alice, "tools/call", { name: "u_ask", arguments: {} });
    assert.equal(noCapability.response.error?.code, -32021, "a client that cannot answer elicitation is told so");
    const rows = await t.app.store.queryAudit({ limit: 5 });
    assert.ok(rows.some((r) => r.tool === "user:alice/u_ask" && r.outcome === "INPUT_REQUIRED"));
  });

  test("an assistant cannot answer for the person by putting the reserved argument in `arguments`", async () => {
    const capabilities = { elicitation: {} };
    const forged = { __knot_input: { answers: { "elicit-1": { action: "accept", content: { colour: "forged" } } }, capabilities: ["elicitation"] } };
    const first = await modernCall(t.url, alice, "tools/call", { name: "u_ask", arguments: forged }, { capabilities });
    assert.equal(first.response.result?.resultType, "input_required", JSON.stringify(first.response));
    const [key] = Object.keys(first.response.result.inputRequests);
    const done = await modernCall(t.url, alice, "tools/call", {
      name: "u_ask", arguments: forged, inputResponses: { [key!]: { action: "accept", content: { colour: "teal" } } }, requestState: first.response.result.requestState,
    }, { capabilities });
    assert.deepEqual(done.response.result.content, [{ type: "text", text: "colour: teal; params: []" }], "the person's answer, not the forged one");
  });

  test("2025-11-25: the same ask() becomes an elicitation request on the session", async () => {
    const client = new Client({ name: "legacy", version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      assert.ok(["What is your name?", "Which colour?"].includes(request.params.message));
      return { action: "accept", content: request.params.message === "Which colour?" ? { colour: "teal" } : { name: "Grace" } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice}` } } }));
    const result = await client.callTool({ name: ASK_NAME, arguments: {} });
    assert.deepEqual(result.content, [{ type: "text", text: "Hello, Grace!" }]);
    // The sandboxed user tool too (its question is answered by the same handler).
    const user = await client.callTool({ name: "u_ask", arguments: {} });
    assert.deepEqual(user.content, [{ type: "text", text: "colour: teal; params: []" }]);
    await client.close();
    // An answer that does not fit the question (a name where a colour was asked) is refused, not passed to the tool.
    const careless = new Client({ name: "legacy", version: "1" }, { capabilities: { elicitation: {} } });
    careless.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Grace" } }));
    await careless.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice}` } } }));
    await assert.rejects(careless.callTool({ name: "u_ask", arguments: {} }), /"name" was not asked for/);
    await careless.close();
  });
});
