/**
 * `node --no-node-snapshot bench/mcp.ts [--calls N] [--data-dir DIR] [--durability normal|full]`: tools/call latency (p50, p99) and calls per
 * second at concurrency 1 and 16, in both MCP revisions (2025-11-25 sessions, 2026-07-28 stateless requests), for (a) a plugin echo tool, (b) a sandboxed user echo tool and
 * (c) a bare SDK server with the same echo tool — the baseline, measured in the same run and in
 * turns with the others (see measureInTurns). Each concurrent caller is its own MCP client and
 * session, as separate assistants would be.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "../src/app.ts";
import { hashSecret, mintSecret } from "../src/auth/secrets.ts";
import { DEFAULT_CONFIG } from "../src/config.ts";
import { silentLogger } from "../src/log.ts";
import { parseUserToolInput } from "../src/tools/user-tool-input.ts";
import { startBareServer } from "./bare-mcp-server.ts";

const ECHO_SOURCE = `import { getString, returnString } from "knot:tool";\nexport default function () { returnString(getString("text")); }`;
const PLUGIN = `// /// script
// [tool.knot]
// version = "1.0.0"
//
// [[tool.knot.mcp_tools]]
// name = "echo"
// description = "Echo the text."
// handler = "echo"
//
// [[tool.knot.mcp_tools.parameters]]
// name = "text"
// type = "string"
// required = true
// ///
import { getString, returnString } from "knot:tool";
export function echo() { returnString(getString("text")); }
`;

export interface BenchRow {
  readonly target: string;
  readonly revision: Revision;
  readonly concurrency: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly callsPerSecond: number;
}

export type Revision = "2025-11-25" | "2026-07-28";

/** A caller: one SDK client with its session (2025), or a stateless 2026 client (no session to open). */
type Caller = { call(tool: string, text: string): Promise<{ isError?: unknown; content?: unknown }>; close(): Promise<void> };

/** A 2026-07-28 client: every call a standalone POST with the `_meta` envelope and routing headers. */
function modernCaller(url: string, token: string | null): Caller {
  let id = 0;
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  return {
    async call(tool, text) {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call", "mcp-name": tool, ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: tool, arguments: { text }, _meta: meta } }),
      });
      const reply = await res.json() as { result?: { isError?: unknown; content?: unknown }; error?: unknown };
      if (!reply.result) throw new Error(`2026 call failed: ${JSON.stringify(reply)}`);
      return reply.result;
    },
    close: async () => {},
  };
}

async function callers(url: string, count: number, token: string | null, revision: Revision): Promise<Caller[]> {
  if (revision === "2026-07-28") return Array.from({ length: count }, () => modernCaller(url, token));
  return (await clients(url, count, token)).map((client) => ({
    call: (tool, text) => client.callTool({ name: tool, arguments: { text } }) as Promise<{ isError?: unknown; content?: unknown }>,
    close: () => client.close(),
  }));
}

async function clients(url: string, count: number, token: string | null): Promise<Client[]> {
  return Promise.all(Array.from({ length: count }, async () => {
    const client = new Client({ name: "bench", version: "1" });
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  }));
}

interface Target {
  readonly name: string;
  readonly url: string;
  readonly token: string | null;
  readonly tool: string;
  readonly calls: number;
}

/** Rounds the targets take turns in: on a shared machine the load drifts, and each target sees the same drift. */
const ROUNDS = 6;

/**
 * The targets measured in turns (round 1 of each, round 2 of each…), each with its own callers,
 * so the ratios against the bare server compare calls made under the same load.
 */
async function measureInTurns(targets: readonly Target[], revision: Revision, concurrency: number): Promise<BenchRow[]> {
  const pools = await Promise.all(targets.map((t) => callers(t.url, concurrency, t.token, revision)));
  const call = (target: Target, client: Caller, i: number) => client.call(target.tool, `hello ${i}`);
  await Promise.all(targets.map((target, n) => Promise.all(pools[n]!.map(async (client) => { for (let i = 0; i < 20; i++) await call(target, client, i); }))));
  const latencies = targets.map((): number[] => []);
  const seconds = targets.map(() => 0);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [n, target] of targets.entries()) {
      const perClient = Math.ceil(target.calls / concurrency / ROUNDS);
      const started = performance.now();
      await Promise.all(pools[n]!.map(async (client) => {
        for (let i = 0; i < perClient; i++) {
          const t0 = performance.now();
          const result = await call(target, client, i);
          latencies[n]!.push(performance.now() - t0);
          if (result.isError) throw new Error(`${target.name}: ${JSON.stringify(result.content)}`);
        }
      }));
      seconds[n]! += (performance.now() - started) / 1000;
    }
  }
  await Promise.all(pools.flat().map((c) => c.close()));
  return targets.map((target, n) => {
    const sorted = latencies[n]!.sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return { target: target.name, revision, concurrency, p50Ms: at(0.5), p99Ms: at(0.99), callsPerSecond: sorted.length / seconds[n]! };
  });
}

export async function runMcpBench(
  calls = 1000,
  dataDir = os.tmpdir(),
  durability: "full" | "normal" = DEFAULT_CONFIG.durability,
  isolateReuse: "user" | "never" = "user",
): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(dataDir, "knot-bench-mcp-"));
  fs.mkdirSync(path.join(dir, "plugins", "bench"), { recursive: true });
  fs.writeFileSync(path.join(dir, "plugins", "bench", "main.js"), PLUGIN);
  // Quotas off (as high as they go): this measures the call path, not the back-pressure.
  const quotas = { ...DEFAULT_CONFIG.quotas, userConcurrentRuns: 64, userRunsPerMinute: 1e9, tokenConcurrentRuns: 64, tokenRunsPerMinute: 1e9, maxConcurrentRuns: 64, maxQueuedRuns: 4096 };
  // One bench user: let it use the whole sandbox (the fairness cap is for many users).
  const sandbox = { ...DEFAULT_CONFIG.sandbox, userRunsInFlight: 8, isolateReuse };
  const config = { ...DEFAULT_CONFIG, host: "127.0.0.1", port: 0, database: path.join(dir, "bench.db"), durability, pluginsDir: path.join(dir, "plugins"), quotas, sandbox };
  const app = await createApp(config, { logger: silentLogger });
  const { url } = await app.listen();
  const user = await app.store.createUser({ name: "bench", isAdmin: false });
  await app.store.grant({ subject: { kind: "user", userId: user.id }, permission: "knot.mcp" });
  const token = mintSecret("kt_");
  await app.store.createToken({ userId: user.id, name: "bench", secretHash: hashSecret(token), scopes: null, expiresAt: null });
  await app.store.createUserTool(user.id, parseUserToolInput({ name: "user_echo", code: ECHO_SOURCE, parameters: [{ name: "text", type: "string", required: true }] }));
  const bare = await startBareServer();
  const rows: BenchRow[] = [];
  try {
    for (const revision of ["2025-11-25", "2026-07-28"] as const) {
      for (const concurrency of [1, 16]) {
        rows.push(...await measureInTurns([
          { name: "bare SDK server", url: bare.url, token: null, tool: "echo", calls },
          { name: "plugin tool", url: `${url}/mcp`, token, tool: "echo", calls },
          { name: "user tool", url: `${url}/mcp`, token, tool: "user_echo", calls: Math.min(calls, 400) },
        ], revision, concurrency));
      }
    }
  } finally {
    await bare.close();
    await app.close();
  }
  return rows;
}

export function formatRows(rows: readonly BenchRow[]): string {
  // Both ratios read "ours ÷ bare": p50 ≤ 1.3 and calls/s ≥ 0.9 are issue 13's goals.
  const lines = ["revision    target            conc   p50 ms   p99 ms   calls/s   vs bare (p50 / calls/s)"];
  for (const row of rows) {
    const base = rows.find((r) => r.target === "bare SDK server" && r.concurrency === row.concurrency && r.revision === row.revision)!;
    lines.push(`${row.revision}  ${row.target.padEnd(17)} ${String(row.concurrency).padStart(4)} ${row.p50Ms.toFixed(2).padStart(8)} ${row.p99Ms.toFixed(2).padStart(8)} ${row.callsPerSecond.toFixed(0).padStart(9)}   ${(row.p50Ms / base.p50Ms).toFixed(2)}x / ${(row.callsPerSecond / base.callsPerSecond).toFixed(2)}x`);
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { calls: { type: "string" }, "data-dir": { type: "string" }, durability: { type: "string" } } });
  const durability = values.durability === "full" || values.durability === "normal" ? values.durability : DEFAULT_CONFIG.durability;
  console.log(`SQLite durability "${durability}"`);
  const rows = await runMcpBench(values.calls ? Number(values.calls) : 1000, values["data-dir"], durability);
  process.stdout.write(`${formatRows(rows)}\n`);
}
