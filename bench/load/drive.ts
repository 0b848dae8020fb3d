/**
 * The load itself: real SDK clients over Streamable HTTP, each its own session, pulling calls from
 * one shared counter until the count is reached or the time is up. Every answer is checked (no
 * isError, the right echo, run as the right user); anything else is counted by kind and code.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CALL_KINDS, LOAD_TOOLS, type CallKind } from "./protocol.ts";

/** What a load client needs of an MCP client: the 1.x SDK's (2025-11-25) and the v2 client's (2026-07-28) both fit. */
interface CallingClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: unknown; structuredContent?: unknown; _meta?: unknown }>;
  close(): Promise<void>;
}

export interface Caller {
  readonly client: CallingClient;
  readonly user: string;
}

/** Which revision the load's clients speak: 2025-11-25 sessions (the 1.x SDK client), 2026-07-28 (the official v2 client), or half each. */
export type LoadRevision = "2025-11-25" | "2026-07-28" | "mixed";

async function connectOne(url: string, token: string, name: string, modern: boolean): Promise<CallingClient> {
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  if (modern) {
    const client = new ModernClient({ name, version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernTransport(new URL(`${url}/mcp`), { requestInit }));
    return client;
  }
  const client = new Client({ name, version: "1" }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit }));
  return client;
}

export interface DriveResult {
  readonly made: Record<CallKind, number>;
  readonly latencies: Record<CallKind, number[]>;
  /** `<kind>:<code>` → count. */
  readonly errors: Map<string, number>;
  readonly seconds: number;
  readonly timedOut: boolean;
}

export async function connectCallers(url: string, users: readonly { name: string; token: string }[], count: number, revision: LoadRevision): Promise<Caller[]> {
  return Promise.all(Array.from({ length: count }, async (_, i) => {
    const user = users[i % users.length]!;
    // Mixed: half the clients are modern, alternating within each user's clients and across users
    // (a user with one client has one kind; with several, both).
    const modern = revision === "2026-07-28" || (revision === "mixed" && ((i % users.length) + Math.floor(i / users.length)) % 2 === 1);
    return { client: await connectOne(url, user.token, `load-${i}`, modern), user: user.name };
  }));
}

/** The i-th call of the mix: kinds in turn, so the mix is an even third each. */
export const kindOf = (i: number): CallKind => CALL_KINDS[i % CALL_KINDS.length]!;

/** One call; answers null when the result is what it should be, else an error code. */
export async function callOnce(caller: Caller, kind: CallKind, i: number): Promise<string | null> {
  const word = `w${i}`;
  const args = kind === "user" ? { text: word } : { word };
  let result;
  try {
    result = await caller.client.callTool({ name: LOAD_TOOLS[kind], arguments: args });
  } catch (error) {
    const e = error as { code?: unknown; name?: string };
    return `THROWN_${String(e.code ?? e.name ?? "error")}`;
  }
  if (result.isError) return String((result._meta as Record<string, unknown> | undefined)?.["knot-tools/errorCode"] ?? "TOOL_ERROR");
  const value = result.structuredContent as Record<string, unknown> | undefined;
  const expected = kind === "plugin" ? { word, length: word.length, by: caller.user, method: "CALL" }
    : kind === "loopback" ? { word, length: word.length, by: caller.user, method: "GET" }
    : { echo: word, by: caller.user };
  return JSON.stringify(value) === JSON.stringify(expected) ? null : "WRONG_RESULT";
}

export async function drive(callers: readonly Caller[], total: number, deadlineAt: number, onProgress?: (done: number) => void): Promise<DriveResult> {
  const made: Record<CallKind, number> = { plugin: 0, user: 0, loopback: 0 };
  const latencies: Record<CallKind, number[]> = { plugin: [], user: [], loopback: [] };
  const errors = new Map<string, number>();
  let next = 0;
  let done = 0;
  let timedOut = false;
  const started = performance.now();
  await Promise.all(callers.map(async (caller) => {
    for (;;) {
      if (Date.now() >= deadlineAt) {
        timedOut = next < total;
        return;
      }
      const i = next;
      if (i >= total) return;
      next += 1;
      const kind = kindOf(i);
      made[kind] += 1;
      const t0 = performance.now();
      const error = await callOnce(caller, kind, i);
      latencies[kind].push(performance.now() - t0);
      if (error) errors.set(`${kind}:${error}`, (errors.get(`${kind}:${error}`) ?? 0) + 1);
      done += 1;
      onProgress?.(done);
    }
  }));
  return { made, latencies, errors, seconds: (performance.now() - started) / 1000, timedOut };
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
