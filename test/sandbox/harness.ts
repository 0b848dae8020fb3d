/**
 * Shared pieces of the sandbox tests: a real pool with small limits, job builders, a real HTTP
 * server on 127.0.0.1:0 playing the loopback target (it checks the bearer token), a marker file
 * that an escaped attack would write, and the "host is unharmed" check every attack test ends with.
 */
import assert from "node:assert/strict";
import { timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import {
  createSandboxPool,
  type GuestUser,
  type LoopbackTarget,
  type RunHooks,
  type RunJob,
  type RunLimits,
  type RunOutcome,
  type SandboxPool,
  type SandboxPoolOptions,
} from "../../sandbox/index.ts";
import { ISOLATE_REUSE } from "../helpers/isolate-mode.ts";

export const USER: GuestUser = Object.freeze({
  id: "u-ann",
  name: "ann",
  isAdmin: false,
  groups: ["staff"],
  permissions: ["tools.run"],
  pluginPermissions: ["plugin.metrics.export"],
});

export const ADMIN: GuestUser = Object.freeze({ id: "u-root", name: "root", isAdmin: true, groups: [], permissions: [], pluginPermissions: [] });

/** Roomy enough for ordinary tools on a loaded 2-core machine. */
export const LIMITS: RunLimits = Object.freeze({
  heapMb: 32,
  cpuMs: 2_000,
  wallMs: 5_000,
  resultBytes: 65_536,
  logBytes: 4_096,
  loopbackCalls: 20,
});

/** Tight limits for attacks: they must trip fast. */
export const ATTACK_LIMITS: RunLimits = Object.freeze({ ...LIMITS, cpuMs: 200, wallMs: 1_000 });

/** Attacks that make real loopback calls: HTTP round trips on a crowded machine need wall time. */
export const CALLING_LIMITS: RunLimits = Object.freeze({ ...LIMITS, cpuMs: 1_000 });

export { ISOLATE_REUSE };

export function createTestPool(options: SandboxPoolOptions = {}): SandboxPool {
  return createSandboxPool({ workers: 1, runsPerWorker: 4, heartbeatMs: 1_000, deadlineGraceMs: 1_000, isolateReuse: ISOLATE_REUSE, ...options });
}

/** A pool whose workers are all ready and have served a run, so timing assertions measure runs only. */
export async function createReadyPool(options: SandboxPoolOptions = {}): Promise<SandboxPool> {
  const pool = createTestPool(options);
  const wanted = options.workers ?? 1;
  const deadline = Date.now() + 20_000;
  while (pool.stats().workers < wanted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const warmups = Array.from({ length: wanted }, () => runTool(pool, "export default () => 1"));
  for (const outcome of await Promise.all(warmups)) assertOk(outcome);
  return pool;
}

let counter = 0;

export interface RunOptions {
  readonly params?: Record<string, unknown>;
  readonly user?: GuestUser;
  readonly loopback?: LoopbackTarget | null;
  readonly limits?: Partial<RunLimits>;
  readonly hooks?: Partial<RunHooks>;
  readonly requestId?: string;
  /** The module set shipped with the job (RunJob.modules). */
  readonly modules?: Record<string, string | null>;
}

export function makeJob(source: string, options: RunOptions = {}): RunJob {
  counter += 1;
  return {
    runId: `test-${process.pid}-${counter}`,
    source,
    filename: "tool:test",
    params: options.params ?? {},
    user: options.user ?? USER,
    loopback: options.loopback ?? null,
    limits: { ...LIMITS, ...options.limits },
    ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
    ...(options.modules !== undefined ? { modules: options.modules } : {}),
  };
}

export function runTool(pool: SandboxPool, source: string, options: RunOptions = {}): Promise<RunOutcome> {
  return pool.run(makeJob(source, options), { resolveModule: () => null, ...options.hooks });
}

export function assertOk(outcome: RunOutcome): Extract<RunOutcome, { ok: true }>["result"] {
  assert.equal(outcome.ok, true, `expected success, got ${JSON.stringify(outcome)}`);
  return (outcome as Extract<RunOutcome, { ok: true }>).result;
}

export function assertError(outcome: RunOutcome, code: string | readonly string[], message?: RegExp): string {
  assert.equal(outcome.ok, false, `expected ${String(code)}, got ${JSON.stringify(outcome)}`);
  const { error } = outcome as Extract<RunOutcome, { ok: false }>;
  const codes = typeof code === "string" ? [code] : code;
  assert.ok(codes.includes(error.code), `expected ${codes.join("|")}, got ${error.code}: ${error.message}`);
  if (message !== undefined) assert.match(error.message, message);
  assert.deepEqual(Object.keys(error).sort(), ["code", "message"]);
  assert.doesNotMatch(error.message, /\/work\/|node_modules|sandbox\/worker|\bat .*:\d+:\d+/, "no host paths or stacks");
  return error.code;
}

export interface Marker {
  readonly dir: string;
  readonly file: string;
  exists(): boolean;
}

export function createMarker(): Marker {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "knot-sandbox-"));
  const file = path.join(dir, "escaped");
  return { dir, file, exists: () => fs.existsSync(file) };
}

/** The pool still serves promptly, and nothing escaped to write the marker. */
export async function assertHostUnharmed(pool: SandboxPool, marker: Marker): Promise<void> {
  const started = Date.now();
  const outcome = await runTool(pool, 'export default () => "still fine"');
  assert.deepEqual(assertOk(outcome), { kind: "text", text: "still fine" });
  assert.ok(Date.now() - started < 8_000, "the next run must be served promptly (a replaced worker included)");
  assert.equal(marker.exists(), false, "the marker file must not have been written");
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "the host's intrinsics are untouched");
}

export interface LoopbackCall {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** The params a loopback call carried: the JSON body (POST) or `?params=<JSON>` (GET). */
export function sentParams(call: LoopbackCall): unknown {
  if (call.method === "POST") return JSON.parse(call.body || "null");
  const packed = new URL(call.url, "http://loopback").searchParams.get("params");
  return packed === null ? null : JSON.parse(packed);
}

export interface LoopbackReply {
  readonly status?: number;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Answer after this long (a slow handler that costs no CPU). */
  readonly delayMs?: number;
}

export interface LoopbackServer {
  readonly target: LoopbackTarget;
  readonly calls: LoopbackCall[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1:0 answering `/plugins/<plugin>/<fn>`; 401 without the token. */
export async function startLoopbackServer(
  reply: (plugin: string, fn: string, call: LoopbackCall) => LoopbackReply,
  token = "tok_" + Math.random().toString(36).slice(2) + "_secret",
): Promise<LoopbackServer> {
  const calls: LoopbackCall[] = [];
  const expected = Buffer.from(`Bearer ${token}`);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const call = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      calls.push(call);
      const given = Buffer.from(req.headers.authorization ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"code":"UNAUTHENTICATED","message":"no"}}');
        return;
      }
      const match = /^\/plugins\/([^/?]+)\/([^/?]+)/.exec(call.url);
      const answer = match ? reply(decodeURIComponent(match[1] as string), decodeURIComponent(match[2] as string), call) : { status: 404 };
      const type = answer.contentType ?? "application/json";
      const body = answer.body === undefined ? "" : typeof answer.body === "string" && !type.includes("json") ? answer.body : JSON.stringify(answer.body);
      const send = () => res.writeHead(answer.status ?? 200, { "content-type": type }).end(body);
      if (answer.delayMs === undefined) send();
      else setTimeout(send, answer.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    target: { baseUrl: `http://127.0.0.1:${port}`, token },
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
