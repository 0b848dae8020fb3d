/**
 * Two app instances on one PostgreSQL database: a 2026-07-28 client's consecutive requests land on
 * different instances and work (no session, shared request-state key), and a tool saved through
 * one instance notifies clients connected to the other (LISTEN/NOTIFY), both revisions.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import fs from "node:fs";
import path from "node:path";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { sharedPostgres } from "../helpers/postgres.ts";
import { CONFORMANCE_PLUGIN } from "./conformance-harness.ts";
import { connect, USER_TOOLS } from "./helpers.ts";
import { modernCall, MODERN } from "./modern-client.ts";

const cluster = sharedPostgres();

/** Opens a 2026 `subscriptions/listen` stream; resolves `changed` at the first tools/list_changed frame. */
async function listen(url: string, token: string): Promise<{ acknowledged: Promise<void>; changed: Promise<unknown>; close(): void }> {
  const abort = new AbortController();
  const res = await fetch(`${url}/mcp`, {
    method: "POST", signal: abort.signal,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, "mcp-protocol-version": MODERN, "mcp-method": "subscriptions/listen" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "subscriptions/listen", params: {
      notifications: { toolsListChanged: true },
      _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} },
    } }),
  });
  let ack!: () => void;
  let changed!: (frame: unknown) => void;
  const acknowledged = new Promise<void>((resolve) => (ack = resolve));
  const change = new Promise<unknown>((resolve) => (changed = resolve));
  void (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (const line of buffer.split("\n").slice(0, -1)) {
        if (!line.startsWith("data:")) continue;
        const frame = JSON.parse(line.slice(5));
        if (frame.method === "notifications/subscriptions/acknowledged") ack();
        if (frame.method === "notifications/tools/list_changed") changed(frame);
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    }
  })();
  return { acknowledged, changed: change, close: () => abort.abort() };
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not arrive within ${ms} ms`)), ms).unref())]);

describe("MCP on two instances sharing PostgreSQL", () => {
  let one: TestApp;
  let two: TestApp;
  let token: string;

  before(async () => {
    const pg = await cluster();
    const schemaUrl = await pg.createSchema();
    const plugins = tempDir("knot-multi-plugins-");
    fs.cpSync(CONFORMANCE_PLUGIN, path.join(plugins, "conformance"), { recursive: true });
    one = await startApp({ pluginsDir: plugins, config: { database: schemaUrl } });
    two = await startApp({ pluginsDir: plugins, config: { database: schemaUrl } });
    token = (await one.userWithToken("alice", { grants: ["knot.mcp", "knot.tools.author"] })).token;
  });
  after(async () => {
    await one?.close();
    await two?.close();
  });

  test("a 2026 client's consecutive requests work on either instance, input rounds included", async () => {
    const listedOne = await modernCall(one.url, token, "tools/list");
    const listedTwo = await modernCall(two.url, token, "tools/list");
    assert.deepEqual(listedTwo.response.result.tools.map((t: { name: string }) => t.name), listedOne.response.result.tools.map((t: { name: string }) => t.name));
    const capabilities = { elicitation: {} };
    const asked = await modernCall(one.url, token, "tools/call", { name: "test_input_required_result_elicitation", arguments: {} }, { capabilities });
    assert.equal(asked.response.result.resultType, "input_required");
    const done = await modernCall(two.url, token, "tools/call", {
      name: "test_input_required_result_elicitation", arguments: {}, requestState: asked.response.result.requestState,
      inputResponses: { user_name: { action: "accept", content: { name: "Lin" } } },
    }, { capabilities });
    assert.deepEqual(done.response.result.content, [{ type: "text", text: "Hello, Lin!" }], "the state sealed on one instance opens on the other");
  });

  test("a tool saved through one instance notifies a 2025 session and a 2026 subscription on the other", async () => {
    const { client } = await connect(two.url, token);
    let legacyChanged!: () => void;
    const legacy = new Promise<void>((resolve) => (legacyChanged = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => legacyChanged());
    const stream = await listen(two.url, token);
    await within(stream.acknowledged, 5_000, "the subscription acknowledgement");
    const saved = await request(`${one.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "saved_on_one", code: USER_TOOLS.greet }) });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    await within(legacy, 5_000, "list_changed on the 2025 session of the other instance");
    await within(stream.changed, 5_000, "list_changed on the 2026 subscription of the other instance");
    assert.ok((await client.listTools()).tools.some((t) => t.name === "saved_on_one"));
    stream.close();
    await client.close();
  });
});
