/**
 * JSON-RPC 2.0 over newline-delimited JSON on a pair of byte streams (a peer's stdin/stdout).
 *
 * Threat: a peer is trusted plugin code, but it is a separate process that can crash, hang or
 * write garbage. Guarantee: every line is parsed and shape-checked before use; a line over
 * `maxLineBytes` or one that is not a JSON-RPC message ends the connection (the supervisor then
 * restarts the peer) instead of growing host memory or throwing in a stream callback.
 */
import type { Readable, Writable } from "node:stream";

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A JSON-RPC error answer, carried as a rejection of `request()`. */
export class RpcError extends Error {
  readonly rpc: RpcErrorObject;
  constructor(rpc: RpcErrorObject) {
    super(rpc.message);
    this.rpc = rpc;
  }
}

export interface LineRpcHandlers {
  /** An incoming request: answer its result or throw (an RpcError keeps its code and data). */
  onRequest(method: string, params: unknown): Promise<unknown>;
  onNotification(method: string, params: unknown): void;
  /** The connection is unusable; `violation` when the peer broke the protocol (bad or oversized line). Called once. */
  onBroken(reason: string, violation: boolean): void;
}

export interface LineRpc {
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown>;
  notify(method: string, params: unknown): void;
  /** Rejects every outstanding request with `error`. */
  failAll(error: Error): void;
}

export function createLineRpc(input: Readable, output: Writable, handlers: LineRpcHandlers, options: { maxLineBytes: number }): LineRpc {
  let nextId = 1;
  let broken = false;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  let buffered = "";

  const breakWith = (reason: string, violation = true) => {
    if (broken) return;
    broken = true;
    handlers.onBroken(reason, violation);
  };
  const send = (message: Record<string, unknown>) => {
    if (broken || output.destroyed) return;
    output.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  };

  input.setEncoding("utf8");
  input.on("data", function onPeerData(chunk: string) {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline !== -1 && !broken) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line !== "") receive(line);
      newline = buffered.indexOf("\n");
    }
    if (buffered.length > options.maxLineBytes) breakWith(`a line over ${options.maxLineBytes} bytes`);
  });
  input.on("close", () => breakWith("its stdout closed", false));
  output.on("error", () => breakWith("its stdin closed", false));

  function receive(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      breakWith("a line that is not JSON");
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message) || (message as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      breakWith("a line that is not a JSON-RPC 2.0 object");
      return;
    }
    const m = message as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
    if (typeof m.method === "string") {
      if (m.id === undefined) handlers.onNotification(m.method, m.params);
      else answer(m.id, m.method, m.params);
      return;
    }
    const entry = typeof m.id === "number" ? pending.get(m.id) : undefined;
    if (!entry) return; // an answer to a request that already timed out
    pending.delete(m.id as number);
    clearTimeout(entry.timer);
    if (m.error !== undefined) entry.reject(new RpcError(asErrorObject(m.error)));
    else entry.resolve(m.result ?? null);
  }

  function answer(id: unknown, method: string, params: unknown): void {
    if (typeof id !== "number" && typeof id !== "string") return;
    handlers.onRequest(method, params).then(
      (result) => send({ id, result: result ?? null }),
      (error: unknown) => send({ id, error: error instanceof RpcError ? error.rpc : { code: -32603, message: "internal error" } }),
    );
  }

  return {
    request(method, params, timeoutMs) {
      if (broken) return Promise.reject(new Error("the connection is closed"));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`no answer to ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        send({ id, method, params });
      });
    },
    notify: (method, params) => send({ method, params }),
    failAll(error) {
      for (const [id, entry] of pending) {
        clearTimeout(entry.timer);
        pending.delete(id);
        entry.reject(error);
      }
    },
  };
}

function asErrorObject(value: unknown): RpcErrorObject {
  if (typeof value !== "object" || value === null) return { code: -32603, message: "malformed error" };
  const e = value as { code?: unknown; message?: unknown; data?: unknown };
  return { code: typeof e.code === "number" ? e.code : -32603, message: typeof e.message === "string" ? e.message.slice(0, 2000) : "error", ...(e.data !== undefined ? { data: e.data } : {}) };
}
