/**
 * Fuzzing /mcp with JSON-RPC messages of random shapes, sent with a valid token and proper Accept
 * headers: before initialize (no session), on an initialized session, on a bogus session, and to a
 * stateless server. Real methods (tools/call with random and half-right params included) and random
 * ones, batches, wrong jsonrpc versions, huge and odd ids, non-object bodies, broken JSON, a body
 * over the size limit. No input may crash the server, yield a 500 other than `handler failed`, or
 * an internal error (JSON-RPC -32603 / a tool result coded INTERNAL); afterwards the server answers
 * /healthz and a real Client still lists and calls tools.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import fc from "fast-check";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, INITIALIZE, saveUserTool, USER_TOOLS } from "../mcp/helpers.ts";

const GRANTS = ["knot.mcp", "knot.tools.author", "plugin.demo.view_dashboard", "plugin.metrics.export"];
const ACCEPT = "application/json, text/event-stream";

let stateful: TestApp;
let stateless: TestApp;
const tokens = new Map<TestApp, string>();
let sessionId: string | null = null;

async function setUp(config: { mcp: { stateless: boolean; allowedHosts: string[] } }): Promise<TestApp> {
  const t = await startApp({ config });
  const { user, token } = await t.userWithToken("fuzzer", { grants: GRANTS });
  await saveUserTool(t, user.id, { name: "u_echo", code: USER_TOOLS.echo, parameters: [{ name: "text", type: "string", required: true }] });
  tokens.set(t, token);
  return t;
}

before(async () => {
  [stateful, stateless] = await Promise.all([setUp({ mcp: { stateless: false, allowedHosts: [] } }), setUp({ mcp: { stateless: true, allowedHosts: [] } })]);
});
after(() => Promise.all([stateful.close(), stateless.close()]));

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

async function post(t: TestApp, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${t.url}/mcp`, {
    method: "POST", body,
    headers: { authorization: `Bearer ${tokens.get(t)}`, accept: ACCEPT, "content-type": "application/json", ...headers },
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** An initialized session on the stateful server (made again when a fuzz case ended it). */
async function session(): Promise<string> {
  if (sessionId) return sessionId;
  const init = await post(stateful, JSON.stringify(INITIALIZE));
  assert.equal(init.status, 200, init.text);
  sessionId = init.headers.get("mcp-session-id")!;
  const ready = await post(stateful, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { "mcp-session-id": sessionId });
  assert.equal(ready.status, 202, ready.text);
  return sessionId;
}

/** The JSON-RPC messages in an answer (a JSON body or the data lines of an event stream). */
function messagesIn(answer: Answer): unknown[] {
  const type = answer.headers.get("content-type") ?? "";
  const texts = type.includes("text/event-stream")
    ? answer.text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6))
    : type.includes("json") && answer.text !== "" ? [answer.text] : [];
  return texts.flatMap((text) => {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value : [value];
  });
}

interface RpcError {
  readonly code?: number;
  readonly message?: string;
  readonly data?: { code?: string };
}

/**
 * The SDK (1.32) answers a spec method whose params fail its schema with -32603 and the zod issue
 * list as the message, instead of -32602: modelcontextprotocol/typescript-sdk#2284. That answer is
 * the SDK refusing bad input before any knot-tools code runs, not a failure inside the server.
 */
function isSdkParamsRejection(error: RpcError): boolean {
  if (error.data !== undefined) return false;
  try {
    const issues = JSON.parse(error.message ?? "") as unknown;
    return Array.isArray(issues) && issues.length > 0 && issues.every((issue) => typeof issue === "object" && issue !== null && "code" in issue && "path" in issue);
  } catch {
    return false;
  }
}

const REAL_METHODS = [
  "initialize", "notifications/initialized", "ping", "tools/list", "tools/call", "logging/setLevel", "resources/list",
  "resources/read", "prompts/list", "prompts/get", "completion/complete", "notifications/cancelled", "notifications/progress",
  "notifications/roots/list_changed", "sampling/createMessage", "elicitation/create", "tasks/list",
];
const TOOL_NAMES = [
  "echo_word", "export_metrics", "u_echo", "tool_search", "execute_tool", "list_user_tools", "get_user_tool", "save_user_tool", "no_such_tool",
];

const json = fc.jsonValue({ maxDepth: 3 });
const id = fc.oneof(
  fc.integer(), fc.constantFrom(2 ** 53 + 2, -(2 ** 63), 1e300, -1e-300, 0.5, Number.MAX_VALUE), fc.string({ maxLength: 40 }),
  fc.constant("x".repeat(10_000)), fc.constant(null), fc.boolean(), fc.constant({}), fc.constant([1]),
);
const toolArguments = fc.oneof(
  fc.record({ word: fc.oneof(fc.string({ maxLength: 20 }), json) }, { requiredKeys: [] }),
  fc.record({ text: fc.oneof(fc.string({ maxLength: 20 }), json) }, { requiredKeys: [] }),
  fc.record({ query: fc.string({ maxLength: 20 }), limit: fc.oneof(fc.integer(), json) }, { requiredKeys: [] }),
  fc.record({ name: fc.constantFrom(...TOOL_NAMES), arguments: json }, { requiredKeys: [] }),
  fc.record({ scope: fc.string({ maxLength: 10 }), hours: fc.oneof(fc.integer({ min: -5, max: 500 }), json) }, { requiredKeys: [] }),
  json,
);
const params = fc.oneof(
  fc.record({
    name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.string({ maxLength: 30 }), json),
    arguments: toolArguments,
    _meta: fc.record({ progressToken: fc.oneof(fc.string(), fc.integer(), json) }, { requiredKeys: [] }),
  }, { requiredKeys: [] }),
  fc.record({ protocolVersion: fc.oneof(fc.constantFrom("2025-06-18", "2025-03-26", "2024-11-05"), fc.string()), capabilities: json, clientInfo: json }, { requiredKeys: [] }),
  fc.record({ level: fc.oneof(fc.constantFrom("debug", "error", "emergency"), json), requestId: id, cursor: json }, { requiredKeys: [] }),
  json,
);
const objectParams = params.filter((p) => typeof p === "object" && p !== null && !Array.isArray(p));
const smallId = fc.oneof(fc.integer({ min: -1_000, max: 1_000_000 }), fc.string({ maxLength: 20 }));
/** Right envelope, real method, random params: gets past the SDK's envelope check to the handlers. */
const wellFormed = fc.record({
  jsonrpc: fc.constant("2.0"),
  id: fc.oneof({ arbitrary: smallId, weight: 4 }, { arbitrary: fc.constantFrom(2 ** 53 + 2, 1e300, -(2 ** 63), 0.5), weight: 1 }),
  method: fc.constantFrom(...REAL_METHODS),
  params: objectParams,
}, { requiredKeys: ["jsonrpc", "id", "method"] });
/** tools/call of real (and unknown) tools with random, half-right and right arguments. */
const toolCall = fc.record({
  jsonrpc: fc.constant("2.0"),
  id: smallId,
  method: fc.constant("tools/call"),
  params: fc.record({ name: fc.oneof({ arbitrary: fc.constantFrom(...TOOL_NAMES), weight: 5 }, { arbitrary: fc.string({ maxLength: 30 }), weight: 1 }), arguments: toolArguments }, { requiredKeys: ["name"] }),
});
const initialize = fc.record({
  jsonrpc: fc.constant("2.0"),
  id: smallId,
  method: fc.constant("initialize"),
  params: fc.record({
    protocolVersion: fc.oneof(fc.constantFrom("2025-06-18", "2025-03-26", "2024-11-05"), fc.string({ maxLength: 12 })),
    capabilities: fc.oneof(fc.constant({}), fc.dictionary(fc.string({ maxLength: 10 }), json)),
    clientInfo: fc.oneof(fc.record({ name: fc.string({ maxLength: 20 }), version: fc.string({ maxLength: 10 }) }), json),
  }, { requiredKeys: [] }),
});
const notification = fc.record({ jsonrpc: fc.constant("2.0"), method: fc.constantFrom(...REAL_METHODS), params: objectParams }, { requiredKeys: ["jsonrpc", "method"] });
const anyShape = fc.record({
  jsonrpc: fc.oneof({ arbitrary: fc.constant("2.0"), weight: 4 }, { arbitrary: fc.constantFrom("1.0", "2", 2, null), weight: 1 }, { arbitrary: json, weight: 1 }),
  id,
  method: fc.oneof({ arbitrary: fc.constantFrom(...REAL_METHODS), weight: 4 }, { arbitrary: fc.string({ maxLength: 30 }), weight: 1 }),
  params,
  result: json,
  error: json,
}, { requiredKeys: [] });
const message = fc.oneof(
  { arbitrary: toolCall, weight: 6 }, { arbitrary: wellFormed, weight: 4 }, { arbitrary: initialize, weight: 1 },
  { arbitrary: notification, weight: 1 }, { arbitrary: anyShape, weight: 3 },
);
const body = fc.oneof(
  { arbitrary: message.map((m) => JSON.stringify(m)), weight: 10 },
  { arbitrary: fc.array(message, { maxLength: 4 }).map((batch) => JSON.stringify(batch)), weight: 3 },
  { arbitrary: json.map((value) => JSON.stringify(value)), weight: 1 },
  { arbitrary: fc.oneof(fc.string({ maxLength: 50 }), fc.constantFrom("", "{", "[", "{\"jsonrpc\":", "\u0000", "[[[]]]", "1".repeat(400))), weight: 1 },
  { arbitrary: fc.constant(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "p".repeat(1_100_000) } })), weight: 1 },
);
const target = fc.oneof(
  { arbitrary: fc.constant("session"), weight: 5 }, { arbitrary: fc.constant("stateless"), weight: 3 },
  { arbitrary: fc.constantFrom("before-initialize", "bogus-session"), weight: 2 },
);
const extraHeaders = fc.oneof({ arbitrary: fc.constant({}), weight: 4 }, {
  arbitrary: fc.record({
    "mcp-protocol-version": fc.oneof(fc.constantFrom("2025-06-18", "2025-03-26", "1999-01-01"), fc.string({ maxLength: 12 }).filter((s) => /^[\x21-\x7e]*$/.test(s))),
    "content-type": fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain"),
  }, { requiredKeys: [] }),
  weight: 1,
});

it("random JSON-RPC messages never crash /mcp, never answer a 500 other than handler failed or an internal error", async () => {
  await fc.assert(fc.asyncProperty(target, body, extraHeaders, async (where, text, headers) => {
    const t = where === "stateless" ? stateless : stateful;
    const sent: Record<string, string> = { ...headers };
    if (where === "session") sent["mcp-session-id"] = await session();
    if (where === "bogus-session") sent["mcp-session-id"] = "00000000-0000-4000-8000-000000000000";
    const answer = await post(t, text, sent);
    assert.ok(answer.status >= 200 && answer.status < 600, `status ${answer.status}`);
    if (answer.status === 500) assert.match(answer.text, /handler failed/, answer.text);
    for (const m of messagesIn(answer) as { error?: RpcError; result?: { _meta?: Record<string, unknown> } }[]) {
      if (m.error?.code === -32603 && !isSdkParamsRejection(m.error)) assert.fail(`internal error for ${text.slice(0, 300)}: ${answer.text.slice(0, 500)}`);
      assert.notEqual(m.error?.data?.code, "INTERNAL", answer.text.slice(0, 500));
      assert.notEqual(m.result?._meta?.["knot-tools/errorCode"], "INTERNAL", answer.text.slice(0, 500));
    }
    if (where === "session" && answer.status === 404) sessionId = null;
  }), { numRuns: Number(process.env.FUZZ_RUNS ?? 200) });

  for (const t of [stateful, stateless]) {
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
    const { client } = await connect(t.url, tokens.get(t)!);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    assert.ok(names.includes("echo_word") && names.includes("tool_search"), names.join(", "));
    assert.deepEqual((await client.callTool({ name: "echo_word", arguments: { word: "still" } })).structuredContent, { word: "still", length: 5, by: "fuzzer", method: "CALL" });
    await client.close();
  }
});
