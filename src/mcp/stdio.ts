/**
 * MCP over stdio, either revision (the SDK's `serveStdio` pins the era from the client's first
 * message), on our own line transport: a line that is not JSON gets a -32700 reply and a message
 * that is not valid JSON-RPC (a bad id, method, params or `_meta`) a -32600 one (the SDK's
 * transport drops both silently, and the client waits forever); a request whose `_meta` names a
 * protocol version other than 2026-07-28 gets -32022 on every message, not only the first (the
 * era is pinned, the check is not); when stdin ends — or the process is asked to stop — the
 * replies still owed are written before the connection closes (the SDK's aborts them), so
 * `echo '{…}' | knot-tools mcp` gets its answer; and a client that stops reading (EPIPE) ends the
 * connection instead of crashing the process.
 */
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../log.ts";
import { malformedToolCall, MAX_MESSAGE_DEPTH, setAsideBadArguments, tooDeepForSdk, type SetAside } from "./set-aside.ts";
import { idOf, unsupportedVersionError } from "./jsonrpc-shapes.ts";
import { isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse, MODERN_PROTOCOL_VERSION, serveStdio, type JSONRPCMessage, type Server, type Transport } from "./sdk.ts";

const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** How long replies still owed at stdin EOF may take before the connection closes anyway. */
const DRAIN_MS = 60_000;
const VERSION_CLAIM = "io.modelcontextprotocol/protocolVersion";

export interface StdioConnection {
  readonly closed: Promise<void>;
  close(): Promise<void>;
  /** Reads no more requests; closes once the replies still owed are written, or after `graceMs` (a stop signal). */
  drain(graceMs: number): void;
  /** The server pinned to this connection (null before the client's first message). */
  server(): Server | null;
}

/** A line's size in bytes (UTF-8), counted only when its characters alone could not decide it. */
function overLimit(text: string): boolean {
  return text.length > MAX_LINE_BYTES || (text.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(text) > MAX_LINE_BYTES);
}

export function serveStdioAs(newServer: (setAside: SetAside) => Server, streams: { input: Readable; output: Writable } | undefined, logger: Logger, setAside: SetAside): StdioConnection {
  let pinned: Server | null = null;
  const transport = new LineTransport(streams?.input ?? process.stdin, streams?.output ?? process.stdout, setAside);
  const closed = new Promise<void>((resolve) => transport.whenClosed(resolve));
  const handle = serveStdio(() => (pinned = newServer(setAside)), { transport, onerror: (error) => logger.debug("mcp stdio", { error: error.message }) });
  return { closed, close: () => handle.close(), drain: (graceMs) => transport.endInput(graceMs), server: () => pinned };
}

class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #owed = new Set<string | number>();
  readonly #setAside: SetAside;
  readonly #closedListeners: (() => void)[] = [];
  #buffer = "";
  /** The rest of an oversized line is being dropped (up to its newline): it was refused whole. */
  #discarding = false;
  #ended = false;
  #closed = false;
  #drainTimer: NodeJS.Timeout | null = null;

  constructor(input: Readable, output: Writable, setAside: SetAside) {
    this.#setAside = setAside;
    this.#input = input;
    this.#output = output;
  }

  whenClosed(listener: () => void): void {
    this.#closedListeners.push(listener);
  }

  async start(): Promise<void> {
    this.#input.setEncoding("utf8");
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.#onEnd);
    this.#input.on("error", this.#onEnd);
    // The client stopped reading (EPIPE): nobody is left to answer, so the connection ends.
    this.#output.on("error", this.#onOutputError);
  }

  readonly #onOutputError = () => {
    void this.close();
  };

  /** As at stdin's end: no more requests are read, and the connection closes once nothing is owed (or after `graceMs`). */
  endInput(graceMs: number): void {
    this.#input.off("data", this.#onData);
    // A stop is not the end of the stream: a line still being received is not a message.
    this.#buffer = "";
    this.#onEnd(graceMs);
  }

  readonly #onData = (chunk: string) => {
    if (this.#discarding) {
      const newline = chunk.indexOf("\n");
      if (newline < 0) return;
      this.#discarding = false;
      chunk = chunk.slice(newline + 1);
    }
    this.#buffer += chunk;
    let newline: number;
    while ((newline = this.#buffer.indexOf("\n")) >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, "");
      this.#buffer = this.#buffer.slice(newline + 1);
      if (overLimit(line)) this.#refuseOversized();
      else if (line.trim() !== "") this.#onLine(line);
    }
    // The line so far is bounded by its characters (a byte count here would rescan it with every chunk); a whole line by its bytes.
    if (this.#buffer.length > MAX_LINE_BYTES) {
      this.#buffer = "";
      this.#discarding = true;
      this.#refuseOversized();
    }
  };

  #refuseOversized(): void {
    this.#reply({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: a line longer than ${MAX_LINE_BYTES} bytes` } });
  }

  #onLine(line: string): void {
    let message: unknown;
    try {
      // A byte-order mark before the first message is not part of it.
      message = JSON.parse(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
    } catch {
      this.#reply({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the line is not valid JSON" } });
      return;
    }
    const m = message as Record<string, unknown> | null;
    const id = idOf(m);
    if (typeof m !== "object" || m === null || Array.isArray(m) || m.jsonrpc !== "2.0") {
      this.#reply({ jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" } });
      return;
    }
    const forSdk = setAsideBadArguments(m, this.#setAside);
    const tooDeep = tooDeepForSdk(forSdk);
    const malformed = tooDeep ? null : malformedToolCall(forSdk);
    if (tooDeep || malformed) {
      // Refused here, so no handler takes what was set aside for this id: a later call reusing it must not.
      if (id !== null) this.#setAside.delete(id);
      const error = malformed
        ? { code: -32602, message: `Invalid params: ${malformed.problem}`, data: { code: "INVALID_ARGUMENT", where: malformed.where } }
        : { code: -32602, message: `Invalid params: the message is nested more than ${MAX_MESSAGE_DEPTH} levels deep` };
      this.#reply({ jsonrpc: "2.0", id, error });
      return;
    }
    const refusal = invalidMessage(forSdk);
    if (refusal) {
      if (id !== null) this.#setAside.delete(id);
      // A response or notification gets no reply (JSON-RPC); a request with an id that could be read does.
      if (refusal.reply) this.#reply({ jsonrpc: "2.0", id, error: refusal.error });
      return;
    }
    if (typeof m.method === "string" && id !== null) this.#owed.add(id);
    this.onmessage?.(forSdk as JSONRPCMessage);
    // A cancelled request is never answered: it is owed nothing any more.
    if (m.method === "notifications/cancelled") this.#settle((m.params as { requestId?: unknown } | undefined)?.requestId);
  }

  /** `id` needs no reply any more; once stdin has ended and nothing is owed, the connection closes. */
  #settle(id: unknown): void {
    if ((typeof id !== "string" && typeof id !== "number") || !this.#owed.delete(id)) return;
    if (this.#ended && this.#owed.size === 0) void this.close();
  }

  readonly #onEnd = (graceMs: unknown = DRAIN_MS) => {
    if (this.#ended) return;
    this.#ended = true;
    // A last line without its newline is still a line.
    const last = this.#discarding ? "" : this.#buffer.replace(/\r$/, "");
    this.#buffer = "";
    if (last.trim() !== "") this.#onLine(last);
    if (this.#owed.size === 0) return void this.close();
    this.#drainTimer = setTimeout(() => void this.close(), typeof graceMs === "number" ? graceMs : DRAIN_MS);
    this.#drainTimer.unref();
  };

  #reply(message: unknown): void {
    if (!this.#closed) this.#output.write(`${JSON.stringify(message)}\n`);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    const m = message as Record<string, unknown>;
    await new Promise<void>((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) return resolve();
      // Waits for room, or for the end: a client gone for good (EPIPE) never drains.
      const done = (): void => {
        this.#output.off("drain", done);
        this.#output.off("close", done);
        this.#output.off("error", done);
        resolve();
      };
      this.#output.once("drain", done).once("close", done).once("error", done);
    });
    if (m.method === undefined) this.#settle(m.id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#drainTimer) clearTimeout(this.#drainTimer);
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
    this.#input.off("error", this.#onEnd);
    // Later write failures of a gone client are nobody's to hear (they would crash an unheard stream).
    this.#output.off("error", this.#onOutputError);
    this.#output.on("error", () => {});
    this.onclose?.();
    for (const listener of this.#closedListeners) listener();
  }
}

/**
 * Why a parsed message cannot go to the SDK (it would drop it without a word): not a JSON-RPC
 * request, notification or response by the SDK's own schema (an id that is null, a boolean or an
 * object; a method that is not a string; params or `_meta` that are not objects), or a request
 * whose `_meta` claims a protocol version other than the stateless one. `reply` is false for what
 * gets no answer (a notification, a response).
 */
function invalidMessage(message: unknown): { reply: boolean; error: { code: number; message: string; data?: unknown } } | null {
  const m = message as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown> } };
  if (isJSONRPCRequest(message)) {
    const claimed = m.params?._meta?.[VERSION_CLAIM];
    if (claimed === undefined || claimed === MODERN_PROTOCOL_VERSION) return null;
    return { reply: true, error: unsupportedVersionError(claimed) };
  }
  if (isJSONRPCNotification(message) || isJSONRPCResponse(message)) return null;
  // Something with an id and a method was meant as a request; a message without an id gets no reply.
  return { reply: m.id !== undefined, error: { code: -32600, message: "Invalid Request: not a valid JSON-RPC request (its id, method, params or _meta)" } };
}
