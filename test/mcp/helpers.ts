/** Shared pieces of the MCP tests: fixture plugins, user tools, and a real SDK client over HTTP. */
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parseUserToolInput } from "../../src/tools/user-tool-input.ts";
import { manifest, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";

/**
 * Two plugins: `tools` (a gated tool, an ungated echo, a destructive one, one with secret and
 * personal parameters, one that throws, one that never ends, a typed one, a chatty one, and
 * `greet`, which a user tool shadows) and `stats` (for scope globs). `marker` records which
 * plugin code ran.
 */
export function writeMcpPlugins(): { dir: string; marker: string } {
  const dir = tempDir("knot-mcp-plugins-");
  const marker = path.join(dir, "ran.log");
  fs.writeFileSync(marker, "");
  writePlugin(dir, "tools", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["ops", "wipe"]
      config = ["marker"]

      [[tool.knot.mcp_tools]]
      name = "ops_report"
      description = "Operations report for the ops group."
      handler = "ops_report"
      permission = "ops"
      read_only = true

      [[tool.knot.mcp_tools]]
      name = "open_echo"
      description = "Echo a message back with who asked."
      handler = "open_echo"
      read_only = true

      [[tool.knot.mcp_tools.parameters]]
      name = "message"
      type = "string"
      description = "What to echo."
      required = true

      [[tool.knot.mcp_tools]]
      name = "danger_wipe"
      description = "Wipe the cache (changes things)."
      handler = "danger_wipe"
      permission = "wipe"
      destructive = true

      [[tool.knot.mcp_tools]]
      name = "login"
      description = "Log in with a password."
      handler = "login"

      [[tool.knot.mcp_tools.parameters]]
      name = "email"
      type = "string"
      personal = true
      required = true

      [[tool.knot.mcp_tools.parameters]]
      name = "password"
      type = "string"
      secret = true
      required = true

      [[tool.knot.mcp_tools]]
      name = "kaboom"
      description = "Always throws."
      handler = "kaboom"

      [[tool.knot.mcp_tools]]
      name = "hang"
      description = "Never finishes."
      handler = "hang"

      [[tool.knot.mcp_tools]]
      name = "typed"
      description = "Takes typed arguments."
      handler = "typed"

      [[tool.knot.mcp_tools.parameters]]
      name = "count"
      type = "int"
      description = "How many."
      required = true

      [[tool.knot.mcp_tools.parameters]]
      name = "mode"
      type = "string"
      enum = ["fast", "slow"]
      default = "fast"

      [[tool.knot.mcp_tools]]
      name = "chatty"
      description = "Reports progress and logs while it runs."
      handler = "chatty"

      [[tool.knot.mcp_tools]]
      name = "greet"
      description = "Greets from the plugin."
      handler = "greet"
    `) + `
import fs from "node:fs";
import { user } from "knot:identity";
import { getInt, getString, log, progress, returnObject, returnString } from "knot:tool";

const mark = (request, what) => fs.appendFileSync(request.config.marker, what + "\\n");
export function ops_report(request) { mark(request, "ops_report"); return { summary: "ops fine", by: user().name }; }
export function open_echo(request) { mark(request, "open_echo"); return { message: request.params.message, by: user().name, method: request.method }; }
export function danger_wipe(request) { mark(request, "danger_wipe"); return "wiped"; }
export function login(request) { mark(request, "login"); returnObject({ ok: true, summary: "logged in " + request.user.name }); }
export function kaboom(request) { mark(request, "kaboom"); throw new Error("secret detail /etc/passwd at db.internal:5432"); }
export function hang(request) { mark(request, "hang"); return new Promise(() => {}); }
export function typed() { returnObject({ count: getInt("count"), mode: getString("mode") }); }
export async function chatty() {
  progress(1, 2, "half way");
  log("info", "chatty says hello");
  log("debug", "chatty debug detail");
  await new Promise((r) => setTimeout(r, 20));
  progress(2, 2);
  returnString("chatty done");
}
export function greet(request) { mark(request, "greet"); return "hello from the plugin"; }
`,
  });
  writePlugin(dir, "stats", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["read"]

      [[tool.knot.mcp_tools]]
      name = "stats_read"
      description = "Read the statistics."
      handler = "stats_read"
      permission = "read"
      read_only = true

      [[tool.knot.mcp_tools]]
      name = "stats_ping"
      description = "Ping the statistics service."
      handler = "stats_ping"
      read_only = true
    `) + `
export function stats_read() { return { rows: 3 }; }
export function stats_ping() { return "pong"; }
`,
  });
  return { dir, marker };
}

export function markerLines(marker: string): string[] {
  return fs.readFileSync(marker, "utf8").split("\n").filter(Boolean);
}

/** User-tool sources used across the tests. */
export const USER_TOOLS = {
  echo: `import { getString, returnObject } from "knot:tool";\nexport default function () { returnObject({ echo: getString("text"), summary: "echoed" }); }`,
  greet: `import { returnString } from "knot:tool";\nexport default function () { returnString("hello from the user tool"); }`,
  loop: `export default function () { for (;;) {} }`,
  throws: `export default function () { throw new Error("user tool failed"); }`,
  chatty: `import { log, progress, returnString } from "knot:tool";\nexport default async function () { progress(1, 2, "half"); log("warn", "careful"); progress(2, 2); returnString("done"); }`,
};

/** Stores a user tool owned by `userId` (input checked as the API checks it). */
export function saveUserTool(t: TestApp, userId: string, body: Record<string, unknown>) {
  return t.app.store.createUserTool(userId, parseUserToolInput(body));
}

/** A real SDK client on `<url>/mcp` with the bearer token. */
export async function connect(url: string, token: string, name = "knot-test-client"): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: "9.8.7" }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, transport };
}

export async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

/** A raw JSON-RPC POST to /mcp (for status codes and headers the SDK client hides). */
export async function postMcp(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST", body: JSON.stringify(body),
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    const data = /^data: (.*)$/m.exec(text);
    json = data ? JSON.parse(data[1]!) : null;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const INITIALIZE = {
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** An SDK client on in-memory streams to a stdio connection of `userId` served by `t`'s app (as `knot-tools mcp --user` serves one). */
export async function stdioClient(t: TestApp, userId: string, name = "stdio-test"): Promise<{ client: Client; close(): Promise<void> }> {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = await t.app.mcp.connectStdio(userId, { input, output });
  const transport: Transport = {
    async start() {
      let buffer = "";
      output.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) transport.onmessage?.(JSON.parse(line));
        }
      });
    },
    async send(message) {
      input.write(`${JSON.stringify(message)}\n`);
    },
    async close() {
      transport.onclose?.();
    },
  };
  const client = new Client({ name, version: "1" });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await client.close();
      await served.close();
    },
  };
}
