/**
 * `knot-tools mcp --user NAME` end to end: the SDK's real StdioClientTransport spawns the CLI,
 * lists and calls a plugin tool and a sandboxed user tool whose loopback call reaches a plugin
 * handler, and the calls are audited. A user without knot.mcp is refused at start.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { openStore } from "../../src/store/index.ts";
import { parseUserToolInput } from "../../src/tools/user-tool-input.ts";
import { cli, cliArgs } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS, tempDir } from "../helpers/fixtures.ts";

const LOOPBACK_TOOL = `import { Widgets } from "plugin:demo";\nimport { returnObject } from "knot:tool";\nexport default async function () { returnObject(await new Widgets().echo("over stdio")); }`;

test("MCP over stdio serves the same tools as the user, with audit", async () => {
  const dir = tempDir();
  const db = path.join(dir, "knot.db");
  const store = await openStore({ path: db });
  const sam = await store.createUser({ name: "sam", isAdmin: false });
  await store.createUser({ name: "nomcp", isAdmin: false });
  await store.grant({ subject: { kind: "user", userId: sam.id }, permission: "knot.mcp" });
  await store.grant({ subject: { kind: "user", userId: sam.id }, permission: "plugin.demo.view_dashboard" });
  await store.createUserTool(sam.id, parseUserToolInput({ name: "via_loopback", code: LOOPBACK_TOOL }));
  await store.close();

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs(["mcp", "--user", "sam", "--db", db, "--plugins", EXAMPLE_PLUGINS]),
    cwd: dir, stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "stdio-test", version: "1.2.3" });
  try {
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(names, ["tool_search", "execute_tool", "via_loopback", "echo_word"]);
    const echo = await client.callTool({ name: "echo_word", arguments: { word: "hi" } });
    assert.deepEqual(echo.structuredContent, { word: "hi", length: 2, by: "sam", method: "CALL" });
    const loop = await client.callTool({ name: "via_loopback", arguments: {} });
    assert.equal(loop.isError, undefined, JSON.stringify(loop));
    const { method: _method, ...answer } = loop.structuredContent as Record<string, unknown>;
    assert.deepEqual(answer, { word: "over stdio", length: 10, by: "sam" });
    await assert.rejects(client.callTool({ name: "export_metrics", arguments: { scope: "x" } }), (e: any) => e.code === -32602);
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr, /"level":"error"/);

  const check = await openStore({ path: db });
  const rows = (await check.queryAudit({ limit: 10 })).reverse();
  await check.close();
  assert.deepEqual(rows.map((r) => [r.surface, r.tool, r.outcome]), [
    ["mcp", "echo_word", "ok"], ["loopback", "demo/echo_word", "ok"], ["mcp", "user:sam/via_loopback", "ok"], ["mcp", "export_metrics", "PERMISSION_DENIED"],
  ]);
  assert.equal(rows[0]!.client, "stdio-test/1.2.3");

  const refused = cli(["mcp", "--user", "nomcp", "--db", db, "--plugins", EXAMPLE_PLUGINS], { cwd: dir, input: "" });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /permission denied: needs knot\.mcp/);
});

/** A database with "sam", who may use MCP and the demo plugin, and the user tools given. */
async function samDatabase(...tools: Array<{ name: string; code: string }>): Promise<{ dir: string; db: string }> {
  const dir = tempDir();
  const db = path.join(dir, "knot.db");
  const store = await openStore({ path: db });
  const sam = await store.createUser({ name: "sam", isAdmin: false });
  await store.grant({ subject: { kind: "user", userId: sam.id }, permission: "knot.mcp" });
  await store.grant({ subject: { kind: "user", userId: sam.id }, permission: "plugin.demo.view_dashboard" });
  for (const tool of tools) await store.createUserTool(sam.id, parseUserToolInput(tool));
  await store.close();
  return { dir, db };
}

test("stdio: a line that is not JSON gets -32700; replies still owed at stdin EOF are written; a 2026 client needs no initialize", async () => {
  const { dir, db } = await samDatabase();
  const lines = (...messages: unknown[]) => messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join("\n") + "\n";
  const replies = (stdout: string) => stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));

  const legacy = cli(["mcp", "--user", "sam", "--db", db, "--plugins", EXAMPLE_PLUGINS], {
    cwd: dir,
    input: lines(
      "this is not json",
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "pipe", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      // The last line before EOF: its reply must still be written.
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo_word", arguments: { word: "eof" } } },
    ),
  });
  const legacyReplies = replies(legacy.stdout);
  assert.ok(legacyReplies.some((r) => r.id === null && r.error?.code === -32700), legacy.stdout);
  assert.deepEqual(legacyReplies.find((r) => r.id === 2)?.result?.structuredContent, { word: "eof", length: 3, by: "sam", method: "CALL" }, legacy.stdout + legacy.stderr);

  const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const modern = cli(["mcp", "--user", "sam", "--db", db, "--plugins", EXAMPLE_PLUGINS], {
    cwd: dir,
    input: lines(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo_word", arguments: { word: "new" }, _meta } },
    ),
  });
  const modernReplies = replies(modern.stdout);
  assert.ok(modernReplies.find((r) => r.id === 1)?.result?.supportedVersions?.includes("2026-07-28"), modern.stdout + modern.stderr);
  assert.equal(modernReplies.find((r) => r.id === 2)?.result?.structuredContent?.word, "new", modern.stdout);
});

test("stdio: a last line without a newline is answered, a cancelled call does not hold EOF open, and an oversized line is refused whole", async () => {
  const { dir, db } = await samDatabase({ name: "slow", code: `export default () => { const until = Date.now() + 4000; while (Date.now() < until) {} return "late"; };\n` });
  const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  const call = (id: number, name: string, args: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta } });
  const replies = (stdout: string) => stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  const mcp = (input: string) => cli(["mcp", "--user", "sam", "--db", db, "--plugins", EXAMPLE_PLUGINS], { cwd: dir, input });

  const unterminated = mcp(call(1, "echo_word", { word: "last" })); // no trailing newline
  assert.equal(replies(unterminated.stdout).find((r) => r.id === 1)?.result?.structuredContent?.word, "last", unterminated.stdout + unterminated.stderr);

  const started = performance.now();
  const cancelled = mcp(`${call(2, "slow")}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "user gave up", _meta } })}\n`);
  const took = performance.now() - started;
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.equal(replies(cancelled.stdout).find((r) => r.id === 2), undefined, "a cancelled request gets no reply");
  assert.ok(took < 20_000, `EOF waited ${Math.round(took)} ms for the reply of a cancelled call`);

  // 11 MB of spaces then a valid message, on one line: the line is refused whole, its tail not run.
  // Then a message nested 100,000 deep outside its arguments: refused with -32602, not a crash.
  const deep = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo_word","arguments":{},"x":${"[".repeat(100_000)}${"]".repeat(100_000)},"_meta":${JSON.stringify(_meta)}}}`;
  // And a refused call whose arguments were set aside, then a good call reusing its id: the good one gets its own arguments.
  const refusedThenReused = `${JSON.stringify({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { arguments: "x", _meta } })}\n${call(10, "echo_word", { word: "own" })}`;
  const oversized = mcp(`${" ".repeat(11 * 1024 * 1024)}${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta } })}\n${deep}\n${refusedThenReused}\n${call(8, "echo_word", { word: "after" })}\n`);
  const got = replies(oversized.stdout);
  assert.equal(got.filter((r) => r.error?.code === -32600).length, 1, oversized.stdout.slice(0, 500));
  assert.equal(got.find((r) => r.id === 7), undefined, "the oversized line's tail was run as a message");
  assert.equal(got.find((r) => r.id === 9)?.error?.code, -32602, oversized.stdout.slice(0, 500));
  assert.equal(got.find((r) => r.id === 8)?.result?.structuredContent?.word, "after", "the next line is served");
  assert.equal(got.filter((r) => r.id === 10).find((r) => r.result)?.result?.structuredContent?.word, "own", oversized.stdout.slice(-1500));
});
