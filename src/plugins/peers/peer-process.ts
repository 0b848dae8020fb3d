/**
 * One peer: an executable in a plugin's `bin/` folder, supervised. It is started and asked to
 * `initialize` within a bound; a peer that exits later is restarted with exponential backoff, and
 * while it is down every call fails fast with 503 PLUGIN_UNAVAILABLE instead of hanging.
 *
 * Threat: a peer asking the host to call another plugin could claim any user. Guarantee: the peer
 * names only a `callId`, which this process minted for a call it is serving right now; the host
 * gates the nested call as that call's principal, and an id that is not in flight is refused.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { ERROR_CODES, KnotError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import type { CallContext } from "../call-context.ts";
import { createLineRpc, RpcError, type LineRpc } from "./line-rpc.ts";
import { parseInitializeResult, type PeerInfo } from "./peer-info.ts";
import { readStderrLines } from "./stderr-lines.ts";

/** A peer's stderr is logged line by line, each cut at this length, at most this many a second. */
const STDERR_LINE_CHARS = 4_000;
const STDERR_LINES_PER_SECOND = 200;

/** How long a peer whose pipe closed has to exit by itself before it is killed (and restarted). */
const HALF_CLOSED_GRACE_MS = 1_000;

export type PeerState = "starting" | "up" | "restarting" | "stopped";

export interface PeerHealth {
  readonly executable: string;
  readonly name: string | null;
  readonly state: PeerState;
  readonly pid: number | null;
  readonly restarts: number;
  readonly lastError: string | null;
}

export interface PeerOptions {
  readonly plugin: string;
  readonly executable: string;
  readonly cwd: string;
  readonly runtimeVersion: string;
  readonly logger: Logger;
  readonly startTimeoutMs: number;
  /** First restart delay; doubles per consecutive failure up to `maxBackoffMs`. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
}

export interface PeerProcess {
  readonly executable: string;
  /** What the first `initialize` answered. */
  readonly info: PeerInfo;
  /** Run one of the peer's functions for the call bound in `context`. */
  call(fn: string, request: unknown, context: CallContext | null, timeoutMs: number): Promise<unknown>;
  /** The peer's bytes for a plugin file, or null (miss, error, not a fetcher). */
  fetch(file: string, timeoutMs: number): Promise<Buffer | null>;
  health(): PeerHealth;
  stop(): Promise<void>;
}

const MAX_LINE_BYTES = 16 * 1024 * 1024;
const STABLE_MS = 10_000;

/** Starts the peer and waits for its `initialize` answer; rejects (and kills it) with a reason. */
export async function startPeer(options: PeerOptions): Promise<PeerProcess> {
  const log = options.logger.child({ plugin: options.plugin, peer: options.executable });
  const calls = new Map<string, CallContext | null>();
  let child: ChildProcess | null = null;
  let rpc: LineRpc | null = null;
  let state: PeerState = "starting";
  let restarts = 0;
  let failures = 0;
  let upSince = 0;
  let lastError: string | null = null;
  let restartTimer: NodeJS.Timeout | null = null;
  let brokenReason: string | null = null;

  const unavailable = () => new KnotError("PLUGIN_UNAVAILABLE", `plugin "${options.plugin}" is unavailable: its peer ${options.executable} is ${state === "stopped" ? "stopped" : "restarting"}; retry shortly`);

  async function launch(): Promise<PeerInfo> {
    const proc = spawn(options.executable, [], { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
    child = proc;
    const spawned = new Promise<void>((resolve, reject) => {
      proc.once("spawn", resolve);
      proc.once("error", (error) => {
        if (child === proc && proc.pid === undefined) child = null;
        reject(new Error(`could not start: ${error.message}`));
      });
    });
    readStderrLines(proc.stderr!, {
      maxChars: STDERR_LINE_CHARS, perSecond: STDERR_LINES_PER_SECOND,
      onLine: (line) => log.info(line, { stream: "stderr" }),
      onDropped: (count) => log.warn(`${count} stderr lines of this peer were not logged (over ${STDERR_LINES_PER_SECOND} a second)`, { stream: "stderr" }),
    });
    const connection = createLineRpc(proc.stdout!, proc.stdin!, {
      onRequest: (method, params) => hostRequest(method, params),
      onNotification: (method, params) => {
        if (method !== "log" || typeof params !== "object" || params === null) return;
        const { level, message } = params as { level?: unknown; message?: unknown };
        const text = String(message ?? "").slice(0, 4000);
        if (level === "error") log.error(text);
        else if (level === "warn" || level === "warning") log.warn(text);
        else if (level === "debug") log.debug(text);
        else log.info(text);
      },
      onBroken: (reason, violation) => {
        if (child !== proc || state === "stopped") return;
        // Nothing it says can arrive any more: from now on calls fail fast, also those made before
        // its exit is seen (which restarts it).
        if (state === "up") state = "restarting";
        if (violation) {
          brokenReason = `the peer sent ${reason}`;
          proc.kill("SIGKILL");
          return;
        }
        // Its pipe closed: its calls fail now. One that keeps running without a way to answer is stopped.
        connection.failAll(unavailable());
        setTimeout(() => {
          if (child !== proc || state === "stopped") return;
          brokenReason = `${reason} while it kept running`;
          proc.kill("SIGKILL");
        }, HALF_CLOSED_GRACE_MS).unref();
      },
    }, { maxLineBytes: MAX_LINE_BYTES });
    rpc = connection;
    proc.once("exit", (code, signal) => onExit(proc, connection, code, signal));
    await spawned;
    upSince = 0;
    const answer = await connection.request("initialize", { runtime: { name: "knot-tools", version: options.runtimeVersion } }, options.startTimeoutMs)
      .catch((error: Error) => { throw new Error(error instanceof RpcError ? `initialize failed: ${error.message}` : `${error.message.replace(/^no answer to initialize/, "did not answer initialize")}`); });
    const info = parseInitializeResult(answer);
    state = "up";
    upSince = Date.now();
    return info;
  }

  function onExit(proc: ChildProcess, connection: LineRpc, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== proc) return;
    child = null;
    calls.clear();
    if (state !== "stopped") {
      lastError = brokenReason ?? `exited (${signal ?? `code ${code}`})`;
      state = "restarting";
    }
    brokenReason = null;
    connection.failAll(unavailable());
    if (state === "stopped") return;
    if (upSince > 0 && Date.now() - upSince > STABLE_MS) failures = 0;
    scheduleRestart();
  }

  function scheduleRestart(): void {
    const delay = Math.min(options.maxBackoffMs ?? 30_000, (options.backoffMs ?? 250) * 2 ** failures);
    failures += 1;
    log.warn("peer stopped; restarting", { reason: lastError, inMs: delay });
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (state === "stopped") return;
      restarts += 1;
      launch().then(() => log.info("peer restarted", { restarts }), (error: Error) => {
        lastError = error.message;
        // Still running (e.g. no answer to initialize): its exit schedules the next try; never started: schedule here.
        if (child) child.kill("SIGKILL");
        else if (state !== "stopped") scheduleRestart();
      });
    }, delay);
    restartTimer.unref();
  }

  /** peer → host: `call` another plugin's declared handler as the originating call's user. */
  async function hostRequest(method: string, params: unknown): Promise<unknown> {
    if (method !== "call") throw new RpcError({ code: -32601, message: `unknown method ${method}` });
    const p = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
    const context = typeof p.callId === "string" ? calls.get(p.callId) : undefined;
    if (!context) throw asRpc(new KnotError("PERMISSION_DENIED", "permission denied: callId is not a call in flight for this peer"));
    try {
      return await context.pool.call(context.principal, String(p.plugin ?? ""), String(p.handler ?? ""), p.params ?? {}, {
        ...(typeof p.method === "string" ? { method: p.method } : {}), requestId: context.requestId,
      });
    } catch (error) {
      throw asRpc(error instanceof KnotError ? error : new KnotError("HANDLER_FAILED", "handler failed"));
    }
  }

  let info: PeerInfo;
  try {
    info = await launch();
  } catch (error) {
    state = "stopped";
    (child as ChildProcess | null)?.kill("SIGKILL");
    throw error;
  }

  return {
    executable: options.executable,
    info,
    async call(fn, request, context, timeoutMs) {
      if (state !== "up" || !rpc) throw unavailable();
      // A call made outside any handler (e.g. at import time) has no principal: its callId refuses nested calls.
      const callId = randomUUID();
      calls.set(callId, context?.principal ? context : null);
      try {
        return await rpc.request("call", { function: fn, request, callId }, timeoutMs);
      } catch (error) {
        throw fromPeerError(error, options.plugin);
      } finally {
        calls.delete(callId);
      }
    },
    async fetch(file, timeoutMs) {
      if (!info.fetcher || state !== "up" || !rpc) return null;
      try {
        const answer = await rpc.request("fetch", { path: file }, timeoutMs) as { content?: unknown } | null;
        return typeof answer?.content === "string" ? Buffer.from(answer.content, "base64") : null;
      } catch {
        return null;
      }
    },
    health: () => ({ executable: path.relative(options.cwd, options.executable), name: info.name, state, pid: child?.pid ?? null, restarts, lastError }),
    async stop() {
      if (restartTimer) clearTimeout(restartTimer);
      const proc = child;
      const connection = rpc;
      state = "stopped";
      if (!proc || !connection) return;
      const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
      connection.request("shutdown", {}, 1_000).catch(() => {});
      const timer = setTimeout(() => proc.kill("SIGKILL"), 1_500);
      await exited;
      clearTimeout(timer);
    },
  };
}

function asRpc(error: KnotError): RpcError {
  return new RpcError({ code: -32000, message: error.message, data: { code: error.code } });
}

/** A peer's JSON-RPC error with a product code is answered like a thrown KnotError; anything else is "handler failed". */
function fromPeerError(error: unknown, plugin: string): Error {
  if (error instanceof KnotError) return error;
  if (error instanceof RpcError) {
    const code = (error.rpc.data as { code?: unknown } | undefined)?.code;
    if (typeof code === "string" && code in ERROR_CODES) return new KnotError(code, error.rpc.message);
    return new Error(`peer of plugin "${plugin}" answered error ${error.rpc.code}: ${error.rpc.message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
