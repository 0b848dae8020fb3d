/**
 * The official TypeScript client v2 (@modelcontextprotocol/client 2.4.0), as a modern assistant
 * runs it: version negotiation "auto" (server/discover first, the 2025 handshake only as a
 * fallback), input required fulfilled by its own handlers (multi-round, elicitation, sampling,
 * roots), list changes through its subscription. The same client pinned to "legacy" checks that
 * the 2025-11-25 session path answers it the same way. Another client than the hand-made
 * requests of revisions.test.ts and the 1.x SDK of the other tests: interop, not our reading of
 * the spec. Over stdio (`knot-tools mcp --user`), the same client in both modes: a sandboxed tool
 * asks, and a tool saved by another process reaches its list-changed handler.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport, type Tool } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { openStore } from "../../src/store/index.ts";
import { parseUserToolInput } from "../../src/tools/user-tool-input.ts";
import { cliArgs } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS, request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { waitFor } from "../helpers/peers.ts";
import { CONFORMANCE_PLUGIN } from "./conformance-harness.ts";
import { saveUserTool, USER_TOOLS } from "./helpers.ts";

const ASK_COLOUR = `import { ask, returnString } from "knot:tool";
export default async function () {
  const first = await ask("Which colour?", { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] });
  const second = await ask("How many?", { type: "object", properties: { count: { type: "number" } }, required: ["count"] });
  returnString((first ? first.colour : "declined") + " x" + (second ? second.count : "?"));
}`;

type Mode = "auto" | "legacy";

interface Opened {
  readonly client: Client;
  /** Resolves when the 2025-11-25 notification stream (the GET) is open: the server drops notifications sent before. */
  readonly streamOpen: Promise<void>;
  /** The JSON-RPC methods (or HTTP verbs of bodyless requests) the client sent, in order. */
  readonly sent: string[];
  /** Each tools list the client's list-changed handler received (names, sorted). */
  readonly changes: string[][];
}

describe("the official MCP client v2 (@modelcontextprotocol/client)", () => {
  let t: TestApp;
  let alice: { id: string; token: string };
  let bob: string;
  const open: Client[] = [];

  before(async () => {
    const plugins = tempDir("knot-v2client-plugins-");
    fs.cpSync(CONFORMANCE_PLUGIN, path.join(plugins, "conformance"), { recursive: true });
    t = await startApp({ pluginsDir: plugins });
    const a = await t.userWithToken("alice", { grants: ["knot.mcp", "knot.tools.author"] });
    alice = { id: a.user.id, token: a.token };
    bob = (await t.userWithToken("bob", { grants: ["knot.mcp"] })).token;
    await saveUserTool(t, alice.id, { name: "u_echo", code: USER_TOOLS.echo, parameters: [{ name: "text", type: "string", required: true }] });
    await saveUserTool(t, alice.id, { name: "u_ask", code: ASK_COLOUR });
  });
  after(async () => {
    await Promise.allSettled(open.map((client) => client.close()));
    await t.close();
  });

  async function openClient(token: string, mode: Mode, answers: { elicit?: Record<string, unknown> | "decline" } = {}): Promise<Opened> {
    const sent: string[] = [];
    const changes: string[][] = [];
    let opened!: () => void;
    const streamOpen = new Promise<void>((resolve) => (opened = resolve));
    const client = new Client({ name: "v2-interop", version: "2.4.0" }, {
      versionNegotiation: { mode },
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
      listChanged: { tools: { debounceMs: 0, onChanged: (error, tools) => changes.push(error ? [`error: ${error.message}`] : (tools ?? []).map((tool: Tool) => tool.name).sort()) } },
    });
    client.setRequestHandler("elicitation/create", async (request) => {
      const wanted = answers.elicit ?? { name: "Ada", colour: "teal", count: 3, color: "blue", ok: true };
      if (wanted === "decline") return { action: "decline" };
      const properties = Object.keys((request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
      return { action: "accept", content: Object.fromEntries(properties.map((key) => [key, wanted[key]])) as Record<string, string | number | boolean> };
    });
    client.setRequestHandler("sampling/createMessage", async () => ({ role: "assistant", content: { type: "text", text: "Paris" }, model: "test-model" }));
    client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: async (input, init) => {
        const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : undefined;
        sent.push(body?.method ?? init?.method ?? "GET");
        const response = await fetch(input, init);
        if ((init?.method ?? "GET") === "GET" && response.ok) opened();
        return response;
      },
    });
    await client.connect(transport);
    open.push(client);
    return { client, sent, changes, streamOpen };
  }

  const text = (result: unknown) => ((result as { content: Array<{ text?: string }> }).content[0]?.text ?? "");

  for (const mode of ["auto", "legacy"] as const) {
    const revision = mode === "auto" ? "2026-07-28" : "2025-11-25";

    test(`${mode}: negotiates ${revision}, lists what the user may see and calls a plugin tool and a user tool`, async () => {
      const { client, sent } = await openClient(alice.token, mode);
      assert.equal(client.getNegotiatedProtocolVersion(), revision);
      if (mode === "auto") {
        assert.equal(sent[0], "server/discover", "a modern client asks server/discover first");
        assert.ok(!sent.includes("initialize"), `no fallback to the 2025 handshake: ${sent.join(" ")}`);
      } else {
        assert.equal(sent[0], "initialize");
      }
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(names.includes("u_echo") && names.includes("test_simple_text"), names.join(","));
      assert.deepEqual(await client.callTool({ name: "u_echo", arguments: { text: mode } }).then((r) => r.structuredContent), { echo: mode, summary: "echoed" });
      assert.equal(text(await client.callTool({ name: "test_simple_text", arguments: {} })), "This is a simple text response for testing.");
      // SEP-1303: a bad argument is a tool result the model can read and correct, not a protocol error.
      const bad = await client.callTool({ name: "u_echo", arguments: { text: 42 } });
      assert.equal(bad.isError, true);
      assert.match(text(bad), /argument "text" of "u_echo" must be string/);
      const bobs = (await (await openClient(bob, mode)).client.listTools()).tools.map((tool) => tool.name);
      assert.ok(!bobs.includes("u_echo") && bobs.includes("test_simple_text"), `bob sees alice's private tool: ${bobs.join(",")}`);
    });

    test(`${mode}: a sandboxed user tool asks twice and a plugin tool asks for an answer, a model and the roots; the client's own handlers answer`, async () => {
      const { client } = await openClient(alice.token, mode);
      assert.equal(text(await client.callTool({ name: "u_ask", arguments: {} })), "teal x3");
      assert.equal(text(await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} })), "Ada likes blue");
      assert.equal(
        text(await client.callTool({ name: "test_input_required_result_multiple_inputs", arguments: {} })),
        "Name: Ada; greeting: Paris; roots: 1",
      );
      const declining = (await openClient(alice.token, mode, { elicit: "decline" })).client;
      assert.equal(text(await declining.callTool({ name: "u_ask", arguments: {} })), "declined x?");
    });

    test(`${mode}: progress and log notifications reach the client's handlers, the log only at a level it asked for; execute_tool runs a user tool`, async () => {
      const { client } = await openClient(alice.token, mode);
      const logs: string[] = [];
      client.setNotificationHandler("notifications/message", (notification) => void logs.push(String(notification.params.level)));
      const progress: string[] = [];
      await client.callTool({ name: "test_tool_with_progress", arguments: {} }, { onprogress: (p) => void progress.push(`${p.progress}/${p.total}`) });
      assert.deepEqual(progress, ["0/100", "50/100", "100/100"]);
      await client.callTool({ name: "test_tool_with_logging", arguments: {} });
      assert.deepEqual(logs, [], "no log notifications before the client asked for a level");
      // 2026-07-28 asks per request (the envelope's log level); 2025-11-25 once per session.
      if (mode === "auto") await client.callTool({ name: "test_tool_with_logging", arguments: {}, _meta: { "io.modelcontextprotocol/logLevel": "debug" } });
      else {
        await client.setLoggingLevel("debug");
        await client.callTool({ name: "test_tool_with_logging", arguments: {} });
      }
      assert.deepEqual(logs, ["info", "info", "info"]);
      assert.equal(text(await client.callTool({ name: "execute_tool", arguments: { name: "u_echo", arguments: { text: "nested" } } })), JSON.stringify({ echo: "nested", summary: "echoed" }));
    });

    test(`${mode}: saving and deleting a user tool in the editor's API reaches the client's list-changed handler with the new list`, async () => {
      const { client, changes, streamOpen } = await openClient(alice.token, mode);
      await client.listTools();
      // 2026-07-28: connect() waited for the subscription's acknowledgement; 2025-11-25: the GET stream opens on its own.
      if (mode === "legacy") await streamOpen;
      const name = `u_new_${mode}`;
      const saved = await request(`${t.url}/api/tools`, alice.token, { method: "POST", body: JSON.stringify({ name, code: USER_TOOLS.greet }) });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      await waitFor(() => changes.some((list) => list.includes(name)), 10_000, `a list with ${name}: ${JSON.stringify(changes)}`);
      const deleted = await request(`${t.url}/api/tools/${saved.body.tool.id}`, alice.token, { method: "DELETE" });
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      await waitFor(() => changes.at(-1)?.includes(name) === false, 10_000, `a list without ${name}: ${JSON.stringify(changes)}`);
      assert.ok(changes.every((list) => !list.some((entry) => entry.startsWith("error"))), JSON.stringify(changes));
    });
  }
});

describe("the official MCP client v2 over stdio (knot-tools mcp --user)", () => {
  const ASK_ONCE = `import { ask, returnString } from "knot:tool";
export default async function () { const a = await ask("Which colour?", { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] }); returnString(a ? a.colour : "declined"); }`;

  for (const mode of ["auto", "legacy"] as const) {
    test(`${mode}: negotiates ${mode === "auto" ? "2026-07-28" : "2025-11-25"}, answers an ask, and hears of a tool another process saved`, async () => {
      const db = path.join(tempDir("knot-v2client-stdio-"), "knot.db");
      const store = await openStore({ path: db });
      const sam = await store.createUser({ name: "sam", isAdmin: false });
      await store.grant({ subject: { kind: "user", userId: sam.id }, permission: "knot.mcp" });
      await store.createUserTool(sam.id, parseUserToolInput({ name: "u_ask", code: ASK_ONCE }));
      await store.close();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: cliArgs(["mcp", "--user", "sam", "--db", db, "--plugins", EXAMPLE_PLUGINS]),
        cwd: path.dirname(db), stderr: "pipe",
      });
      const changes: string[][] = [];
      const client = new Client({ name: "v2-stdio", version: "2.4.0" }, {
        versionNegotiation: { mode },
        capabilities: { elicitation: { form: {} } },
        listChanged: { tools: { debounceMs: 0, onChanged: (error, tools) => changes.push(error ? [`error: ${error.message}`] : (tools ?? []).map((tool: Tool) => tool.name)) } },
      });
      client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { colour: "teal" } }));
      try {
        await client.connect(transport);
        assert.equal(client.getNegotiatedProtocolVersion(), mode === "auto" ? "2026-07-28" : "2025-11-25");
        assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ["tool_search", "execute_tool", "u_ask", "echo_word"]);
        assert.deepEqual((await client.callTool({ name: "u_ask", arguments: {} })).content, [{ type: "text", text: "teal" }]);
        assert.deepEqual((await client.callTool({ name: "echo_word", arguments: { word: "hi" } })).structuredContent, { word: "hi", length: 2, by: "sam", method: "CALL" });
        // Another process (the CLI, the HTTP server) saves a tool on the same database file.
        const other = await openStore({ path: db });
        await other.createUserTool(sam.id, parseUserToolInput({ name: "u_later", code: "export default () => 1" }));
        await other.close();
        await waitFor(() => changes.some((list) => list.includes("u_later")), 10_000, `a list with u_later: ${JSON.stringify(changes)}`);
      } finally {
        await client.close();
      }
    });
  }
});
