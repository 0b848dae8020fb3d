/**
 * `knot-tools mcp --user NAME` at its edges (src/mcp/stdio.ts, src/cli/claim-stdout.ts), found by
 * probing it as a client: messages that are not valid JSON-RPC are answered (-32600) instead of
 * dropped (the client waited forever, and EOF waited 60 s for their replies); a version claim is
 * checked on every message, not only the first; a plugin's console output never reaches the MCP
 * channel; a client that stops reading ends the connection instead of crashing the process; and a
 * stop signal lets the running call finish and answer.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { openStore } from "../../src/store/index.ts";
import { parseUserToolInput } from "../../src/tools/user-tool-input.ts";
import { cli, cliArgs } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS, tempDir } from "../helpers/fixtures.ts";

const _meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const lines = (...messages: unknown[]) => messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join("\n") + "\n";
const replies = (stdout: string) => stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));

const NOISY = `// /// script
// [tool.knot]
// version = "1.0.0"
//
// [[tool.knot.mcp_tools]]
// name = "noisy"
// description = "Prints while it works."
// handler = "noisy"
// ///
console.log("noisy: loaded");
export function noisy() {
  console.log("noisy: called");
  console.info({ also: "this" });
  process.stdout.write("raw bytes\\n");
  return "quiet result";
}
`;

/** A database with sam (knot.mcp) and the example plugins plus `noisy`; `slow` is a user tool that takes 2 s. */
async function setUp(): Promise<{ dir: string; db: string; plugins: string }> {
  const dir = tempDir();
  const db = path.join(dir, "knot.db");
  const plugins = path.join(dir, "plugins");
  fs.cpSync(EXAMPLE_PLUGINS, plugins, { recursive: true });
  fs.mkdirSync(path.join(plugins, "noisy"));
  fs.writeFileSync(path.join(plugins, "noisy", "main.js"), NOISY);
  const store = await openStore({ path: db });
  const sam = await store.createUser({ name: "sam", isAdmin: false });
  await store.grant({ subject: { kind: "user", userId: sam.id }, permission: "knot.mcp" });
  await store.createUserTool(sam.id, parseUserToolInput({ name: "slow", code: `export default () => { const until = Date.now() + 2000; while (Date.now() < until) {} return "finished"; };\n` }));
  await store.close();
  return { dir, db, plugins };
}

test("stdio: invalid JSON-RPC is answered -32600, a wrong version claim -32022 on any message, and stdout carries only MCP lines", async () => {
  const { dir, db, plugins } = await setUp();
  const bad = [
    { jsonrpc: "2.0", id: null, method: "tools/list", params: { _meta } },
    { jsonrpc: "2.0", id: true, method: "tools/list", params: { _meta } },
    { jsonrpc: "2.0", id: {}, method: "tools/list", params: { _meta } },
    { jsonrpc: "2.0", id: 11, method: 42, params: { _meta } },
    { jsonrpc: "2.0", id: 12, method: "tools/list", params: null },
    { jsonrpc: "2.0", id: 13, method: "tools/list", params: [1, 2] },
    { jsonrpc: "2.0", id: 14, method: "tools/list", params: { _meta: "x" } },
    { jsonrpc: "2.0", id: 15, method: "tools/call", params: { name: "echo_word", arguments: { word: "w" }, _meta: { ..._meta, progressToken: { no: 1 } } } },
  ];
  const started = performance.now();
  const run = cli(["mcp", "--user", "sam", "--db", db, "--plugins", plugins], {
    cwd: dir,
    input: lines(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta } },
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta } },
      ...bad,
      // The era is pinned by the first message; the claim is still checked on every one.
      { jsonrpc: "2.0", id: 21, method: "tools/list", params: { _meta: { ..._meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } } },
      { jsonrpc: "2.0", id: 22, method: "tools/list", params: { _meta: { ..._meta, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } } },
      // A claim that is no string, made to throw when turned into one: answered, and the connection lives on.
      { jsonrpc: "2.0", id: 24, method: "tools/list", params: { _meta: { ..._meta, "io.modelcontextprotocol/protocolVersion": { toString: 1 } } } },
      `\uFEFF${JSON.stringify({ jsonrpc: "2.0", id: 23, method: "tools/call", params: { name: "noisy", arguments: {}, _meta } })}`,
    ),
  });
  const took = performance.now() - started;
  // Every stdout line is a JSON-RPC message: the plugin's prints went to stderr.
  const got = replies(run.stdout);
  assert.ok(got.every((r) => r.jsonrpc === "2.0"), run.stdout);
  assert.match(run.stderr, /noisy: loaded/);
  assert.match(run.stderr, /noisy: called/);
  assert.match(run.stderr, /raw bytes/);
  assert.equal(got.find((r) => r.id === 23)?.result?.content?.[0]?.text, "quiet result", run.stdout);
  const invalid = got.filter((r) => r.error?.code === -32600);
  assert.equal(invalid.length, bad.length, `each invalid message answered once: ${run.stdout}`);
  assert.deepEqual(invalid.map((r) => r.id).filter((id) => id !== null).sort(), [11, 12, 13, 14, 15]);
  for (const id of [21, 22, 24]) {
    const reply = got.find((r) => r.id === id);
    assert.equal(reply?.error?.code, -32022, `id ${id}: ${run.stdout}`);
    assert.deepEqual(reply.error.data.supported, ["2026-07-28"]);
  }
  assert.ok(got.find((r) => r.id === 2)?.result?.tools, "a good request is served");
  assert.ok(took < 30_000, `EOF waited ${Math.round(took)} ms: a refused request was still owed a reply`);
});

test("stdio: a client that stops reading ends the connection (no EPIPE crash); a stop signal lets the running call answer", async () => {
  const { dir, db, plugins } = await setUp();
  const start = () => {
    const child = spawn(process.execPath, cliArgs(["mcp", "--user", "sam", "--db", db, "--plugins", plugins]), { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const output = () => ({ stdout, stderr });
    const until = async (pattern: RegExp) => {
      const deadline = Date.now() + 20_000;
      while (!pattern.test(stdout) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.match(stdout, pattern);
    };
    return { child, exited, output, until };
  };

  const gone = start();
  gone.child.stdin.write(lines({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta } }));
  await gone.until(/"id":1/);
  gone.child.stdin.write(lines({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow", arguments: {}, _meta } }));
  gone.child.stdout.destroy(); // the client stops reading while the call runs
  const goneCode = await gone.exited;
  assert.doesNotMatch(gone.output().stderr, /EPIPE|Unhandled|uncaught/i, gone.output().stderr);
  assert.equal(goneCode, 0, gone.output().stderr);

  const stopped = start();
  stopped.child.stdin.write(lines({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta } }));
  await stopped.until(/"id":1/);
  stopped.child.stdin.write(lines({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "slow", arguments: {}, _meta } }));
  await new Promise((r) => setTimeout(r, 500)); // the call is running
  stopped.child.kill("SIGTERM");
  assert.equal(await stopped.exited, 0, stopped.output().stderr);
  const answer = replies(stopped.output().stdout).find((r) => r.id === 3);
  assert.equal(answer?.result?.content?.[0]?.text, "finished", `the running call finished and answered: ${stopped.output().stdout}`);
});
