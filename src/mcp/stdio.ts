/**
 * MCP over stdio, either revision (the SDK's `serveStdio` pins the era from the client's first
 * message), on our own line transport: a line that is not JSON gets a -32700 reply (the SDK's
 * transport drops it silently), and when stdin ends the replies still owed are written before the
 * connection closes (the SDK's aborts them), so `echo '{…}' | knot-tools mcp` gets its answer.
 */
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../log.ts";
import { malformedToolCall, MAX_MESSAGE_DEPTH, setAsideBadArguments, tooDeepForSdk, type SetAside } from "./set-aside.ts";
import { serveStdio, type JSONRPCMessage, type Server, type Transport } from "./sdk.ts";

const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** How long replies still owed at stdin EOF may take before the connection closes anyway. */
const DRAIN_MS = 60_000;

export interface StdioConnection {
  readonly closed: Promise<void>;
  close(): Promise<void>;
  /** The server pinned to this connection (null before the client's first message). */
  server(): Server | null;
}

export function serveStdioAs(newServer: (setAside: SetAside) => Server, streams: { input: Readable; output: Writable } | undefined, logger: Logger, setAside: SetAside): StdioConnection {
  let pinned: Server | null = null;
  const transport = new LineTransport(streams?.input ?? process.stdin, streams?.output ?? process.stdout, setAside);
  const closed = new Promise<void>((resolve) => transport.whenClosed(resolve));
  const handle = serveStdio(() => (pinned = newServer(setAside)), { transport, onerror: (error) => logger.debug("mcp stdio", { error: error.message }) });
  return { closed, close: () => handle.close(), server: () => pinned };
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
      if (line.length > MAX_LINE_BYTES) this.#refuseOversized();
      else if (line.trim() !== "") this.#onLine(line);
    }
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
      message = JSON.parse(line);
    } catch {
      this.#reply({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the line is not valid JSON" } });
      return;
    }
    const m = message as Record<string, unknown> | null;
    if (typeof m !== "object" || m === null || Array.isArray(m) || m.jsonrpc !== "2.0") {
      const id = typeof m === "object" && m !== null && !Array.isArray(m) && (typeof m.id === "string" || typeof m.id === "number") ? m.id : null;
      this.#reply({ jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" } });
      return;
    }
    const forSdk = setAsideBadArguments(m, this.#setAside);
    const id = typeof m.id === "string" || typeof m.id === "number" ? m.id : null;
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
    if (typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number")) this.#owed.add(m.id);
    this.onmessage?.(forSdk as JSONRPCMessage);
    // A cancelled request is never answered: it is owed nothing any more.
    if (m.method === "notifications/cancelled") this.#settle((m.params as { requestId?: unknown } | undefined)?.requestId);
  }

  /** `id` needs no reply any more; once stdin has ended and nothing is owed, the connection closes. */
  #settle(id: unknown): void {
    if ((typeof id !== "string" && typeof id !== "number") || !this.#owed.delete(id)) return;
    if (this.#ended && this.#owed.size === 0) void this.close();
  }

  readonly #onEnd = () => {
    if (this.#ended) return;
    this.#ended = true;
    // A last line without its newline is still a line.
    const last = this.#discarding ? "" : this.#buffer.replace(/\r$/, "");
    this.#buffer = "";
    if (last.trim() !== "") this.#onLine(last);
    if (this.#owed.size === 0) return void this.close();
    this.#drainTimer = setTimeout(() => void this.close(), DRAIN_MS);
    this.#drainTimer.unref();
  };

  #reply(message: unknown): void {
    if (!this.#closed) this.#output.write(`${JSON.stringify(message)}\n`);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    const m = message as Record<string, unknown>;
    await new Promise<void>((resolve) => (this.#output.write(`${JSON.stringify(message)}\n`) ? resolve() : this.#output.once("drain", resolve)));
    if (m.method === undefined) this.#settle(m.id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#drainTimer) clearTimeout(this.#drainTimer);
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
    this.#input.off("error", this.#onEnd);
    this.onclose?.();
    for (const listener of this.#closedListeners) listener();
  }
}
