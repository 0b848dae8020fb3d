/**
 * tools/call: argument validation (a protocol error naming the argument), results as knot shapes
 * them, failures as `isError` results without detail, progress and log notifications from plugin
 * and sandboxed user tools, the meta boot tools, and the authoring tools.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, markerLines, saveUserTool, toolNames, USER_TOOLS, writeMcpPlugins } from "./helpers.ts";

const ERROR_META = "knot-tools/errorCode";

describe("MCP tool calls", () => {
  let t: TestApp;
  let marker: string;
  let alice: Client;
  let author: Client;
  let bob: Client;

  before(async () => {
    const plugins = writeMcpPlugins();
    marker = plugins.marker;
    t = await startApp({ pluginsDir: plugins.dir, config: { plugins: { tools: { marker } } } });
    const a = await t.userWithToken("alice", { grants: ["knot.mcp"] });
    const w = await t.userWithToken("wendy", { grants: ["knot.mcp", "knot.tools.author"] });
    const b = await t.userWithToken("bob", { grants: ["knot.mcp"] });
    await saveUserTool(t, a.user.id, { name: "u_echo", code: USER_TOOLS.echo, parameters: [{ name: "text", type: "string", required: true, description: "Text." }] });
    await saveUserTool(t, a.user.id, { name: "u_throws", code: USER_TOOLS.throws });
    await saveUserTool(t, a.user.id, { name: "u_chatty", code: USER_TOOLS.chatty });
    alice = (await connect(t.url, a.token)).client;
    author = (await connect(t.url, w.token)).client;
    bob = (await connect(t.url, b.token)).client;
  });
  after(async () => {
    await Promise.all([alice.close(), author.close(), bob.close()]);
    await t.close();
  });

  test("arguments are validated before the handler runs; the isError result (SEP-1303) names the argument", async () => {
    const before = markerLines(marker).length;
    const invalid = async (name: string, args: unknown, text: RegExp, where?: string) => {
      const result = await alice.callTool({ name, arguments: args as Record<string, unknown> });
      assert.equal(result.isError, true, name);
      assert.equal((result._meta as any)[ERROR_META], "INVALID_ARGUMENT", name);
      assert.match((result.content as any)[0].text, text);
      if (where) assert.equal((result._meta as any)["knot-tools/where"], where);
    };
    await invalid("open_echo", {}, /argument "message" of "open_echo" is required/, "message");
    await invalid("typed", { count: "three" }, /"count"/, "count");
    await invalid("typed", { count: 1, mode: "warp" }, /"mode"/);
    await invalid("u_echo", { text: 5 }, /"text"/, "text");
    assert.equal(markerLines(marker).length, before);
    // Defaults from the schema are filled in.
    assert.deepEqual((await alice.callTool({ name: "typed", arguments: { count: 2 } })).structuredContent, { count: 2, mode: "fast" });
  });

  test("results: a return* wins, a string is text, anything else JSON text plus structuredContent", async () => {
    const echo = await alice.callTool({ name: "open_echo", arguments: { message: "hi" } });
    assert.deepEqual(echo.structuredContent, { message: "hi", by: "alice", method: "CALL" });
    assert.deepEqual(JSON.parse((echo.content as any)[0].text), echo.structuredContent);
    assert.deepEqual((await alice.callTool({ name: "greet", arguments: {} })).content, [{ type: "text", text: "hello from the plugin" }]);
    const user = await alice.callTool({ name: "u_echo", arguments: { text: "yo" } });
    assert.deepEqual(user.structuredContent, { echo: "yo", summary: "echoed" });
    assert.equal(user.isError, undefined);
  });

  test("a throwing plugin tool and a throwing user tool are isError results without leaking detail", async () => {
    const plugin = await alice.callTool({ name: "kaboom", arguments: {} });
    assert.equal(plugin.isError, true);
    assert.equal((plugin._meta as any)[ERROR_META], "HANDLER_FAILED");
    assert.deepEqual(plugin.content, [{ type: "text", text: "handler failed" }]);
    const user = await alice.callTool({ name: "u_throws", arguments: {} });
    assert.equal(user.isError, true);
    assert.equal((user._meta as any)[ERROR_META], "TOOL_ERROR");
    const text = JSON.stringify(user.content);
    assert.match(text, /user tool failed/);
    for (const leak of [/\/etc\/passwd/, /db\.internal/, /\bat \S+ \(/, /\/work\//, /node_modules/, /sandbox\//]) {
      assert.doesNotMatch(JSON.stringify(plugin) + text, leak);
    }
  });

  test("progress and log events of a plugin tool and of a sandboxed user tool reach the client", async () => {
    const logs: any[] = [];
    alice.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await alice.setLoggingLevel("info");
    for (const name of ["chatty", "u_chatty"]) {
      const progress: any[] = [];
      const result = await alice.callTool({ name, arguments: {} }, undefined, { onprogress: (p) => void progress.push(p) });
      assert.equal(result.isError, undefined, name);
      assert.deepEqual(progress.map((p) => [p.progress, p.total]), [[1, 2], [2, 2]], name);
      assert.ok(progress[0].message === "half way" || progress[0].message === "half");
    }
    assert.deepEqual(logs.map((l) => [l.level, l.logger, l.data]), [["info", "chatty", "chatty says hello"], ["warning", "u_chatty", "careful"]], "debug lines are filtered at level info");
  });

  test("tool_search finds tools by words; execute_tool calls one by name with the same rules", async () => {
    const found = await alice.callTool({ name: "tool_search", arguments: { query: "echo message" } });
    const names = (found.structuredContent as any).tools.map((x: any) => x.name);
    assert.equal(names[0], "open_echo");
    assert.ok(names.includes("u_echo"));
    assert.ok(!names.includes("ops_report"));
    const ran = await alice.callTool({ name: "execute_tool", arguments: { name: "u_echo", arguments: { text: "via execute" } } });
    assert.deepEqual(ran.structuredContent, { echo: "via execute", summary: "echoed" });
    const invalid = await alice.callTool({ name: "execute_tool", arguments: { name: "u_echo", arguments: {} } });
    assert.equal(invalid.isError, true);
    assert.equal((invalid._meta as any)["knot-tools/where"], "text");
    const nested = await alice.callTool({ name: "execute_tool", arguments: { name: "execute_tool", arguments: { name: "greet" } } });
    assert.equal(nested.isError, true);
  });

  test("authoring tools are gated by knot.tools.author; a saved tool answers diagnostics, is callable, and list_changed is sent", async () => {
    assert.ok(!(await toolNames(alice)).includes("save_user_tool"));
    await assert.rejects(alice.callTool({ name: "save_user_tool", arguments: { name: "x", code: "" } }), (e: any) => e.code === -32602);
    let changed = 0;
    author.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    let bobChanged = 0;
    bob.setNotificationHandler(ToolListChangedNotificationSchema, () => void bobChanged++);

    const broken = await author.callTool({ name: "save_user_tool", arguments: { name: "adder", code: "export default function ( {" } });
    assert.ok((broken.structuredContent as any).diagnostics.length > 0, "lint diagnostics are answered");
    const saved = await author.callTool({
      name: "save_user_tool",
      arguments: { name: "adder", description: "Adds two numbers.", code: `import { getInt, returnObject } from "knot:tool";\nexport default function () { returnObject({ sum: getInt("a") + getInt("b") }); }`, parameters: [{ name: "a", type: "int", required: true }, { name: "b", type: "int", required: true }] },
    });
    assert.equal((saved.structuredContent as any).created, false, "the second save updates the tool of that name");
    assert.deepEqual((saved.structuredContent as any).diagnostics, []);
    assert.deepEqual((await author.callTool({ name: "adder", arguments: { a: 2, b: 3 } })).structuredContent, { sum: 5 });
    const listed = await author.callTool({ name: "list_user_tools", arguments: {} });
    assert.deepEqual((listed.structuredContent as any).tools.map((x: any) => [x.name, x.version]), [["adder", 2]]);
    assert.match((await author.callTool({ name: "get_user_tool", arguments: { name: "adder" } }) as any).structuredContent.tool.code, /getInt/);
    const missing = await author.callTool({ name: "get_user_tool", arguments: { name: "nope" } });
    assert.equal((missing._meta as any)[ERROR_META], "NOT_FOUND");
    const deleted = await author.callTool({ name: "delete_user_tool", arguments: { name: "adder" } });
    assert.equal((deleted.structuredContent as any).name, "adder");
    await assert.rejects(author.callTool({ name: "adder", arguments: { a: 1, b: 1 } }), (e: any) => e.code === -32602);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(changed >= 3, `list_changed after each save and the delete (got ${changed})`);
    assert.equal(bobChanged, 0, "a private tool does not concern other users");
  });
});
