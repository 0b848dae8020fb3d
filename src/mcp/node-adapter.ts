/**
 * The 2026-07-28 handler (`createMcpHandler`, a web-standard `fetch`) on node:http, for a body
 * the route has already read and parsed. It does what the SDK's `toNodeHandler` does, minus the
 * work a parsed body makes pointless, which was a good part of every stateless call (issue 13):
 * the request goes in without its body (the SDK classifies and serves from `parsedBody` and never
 * reads it; re-serialising and re-encoding the JSON cost each call), and a JSON answer goes out as
 * one write with its length instead of a chunked stream. Streamed answers (`text/event-stream`:
 * progress, subscriptions) are still copied chunk by chunk, with backpressure, and their headers go
 * out at once when no event is ready. A client that goes away aborts the request's signal and
 * cancels the stream, so the SDK stops serving it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo, SdkHttpHandler } from "./sdk.ts";
import { idOf } from "./jsonrpc-shapes.ts";

export type NodeMcpHandler = (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody: unknown) => Promise<void>;

export function toParsedBodyNodeHandler(handler: SdkHttpHandler, onerror: (error: Error) => void): NodeMcpHandler {
  return async (req, res, parsedBody) => {
    let finished = false;
    const abort = new AbortController();
    res.on("close", () => {
      if (!finished) abort.abort();
    });
    if (res.destroyed) abort.abort();
    let response: Response;
    try {
      response = await handler.fetch(bodylessRequest(req, abort.signal), {
        ...(req.auth !== undefined ? { authInfo: req.auth } : {}),
        ...(parsedBody !== undefined ? { parsedBody } : {}),
      });
    } catch (error) {
      try {
        onerror(error instanceof Error ? error : new Error(String(error)));
      } catch {
        // an observer's failure changes nothing for the caller
      }
      response = Response.json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: echoableId(parsedBody) }, { status: 500 });
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) headers[name] = value;
    if (response.body === null) {
      finished = true;
      res.writeHead(response.status, headers);
      res.end();
      return;
    }
    if (mediaType(headers["content-type"]) !== "text/event-stream") {
      const bytes = Buffer.from(await response.arrayBuffer());
      delete headers["transfer-encoding"];
      headers["content-length"] = String(bytes.byteLength);
      finished = true;
      res.writeHead(response.status, headers);
      res.end(bytes);
      return;
    }
    try {
      res.writeHead(response.status, headers);
    } catch (error) {
      // Nobody will read the stream: let the SDK stop what feeds it (not awaited: a source whose
      // cancel never settles must not hold this handler).
      void response.body.cancel().catch(() => {});
      throw error;
    }
    await copyStream(response.body, res, abort.signal);
    finished = true;
    res.end();
  };
}

/** A content type's essence ("text/event-stream; charset=utf-8" → "text/event-stream"): media types are case-insensitive. */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The Node request as a web `Request` without a body: the SDK reads the parsed one. */
function bodylessRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(":") || name === "content-length" || name === "transfer-encoding" || name === "content-encoding") continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const host = req.headers.host ?? "localhost";
  return new Request(`http://${host}${req.url ?? "/"}`, { method: (req.method ?? "GET").toUpperCase(), headers, signal });
}

/**
 * Copies a streamed answer, waiting for `drain` when the socket is full. A client that goes away
 * cancels the stream, also while it waits for its next event (a web-standard source learns it is
 * no longer read only from the cancel; the SDK's 2025 transport, for one, frees a stream only then).
 */
async function copyStream(body: ReadableStream<Uint8Array>, res: ServerResponse, signal: AbortSignal): Promise<void> {
  const reader = body.getReader();
  let drained: (() => void) | undefined;
  const onDrain = () => {
    drained?.();
    drained = undefined;
  };
  const onAbort = () => {
    drained?.();
    void reader.cancel().catch(() => {});
  };
  res.on("drain", onDrain);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal.aborted) return onAbort();
    // With no event ready, the headers go out at once (as the SDK's Node wrapper does): a stream may
    // stay quiet for a long time (a slow tool, a keep-alive every 15 s), and its client waits for them.
    let first: ReturnType<typeof reader.read> | undefined = reader.read();
    if ((await Promise.race([first, Promise.resolve(undefined)])) === undefined && !signal.aborted) res.flushHeaders();
    for (;;) {
      const { done, value } = await (first ?? reader.read());
      first = undefined;
      if (done || signal.aborted) break;
      if (!res.write(value)) await new Promise<void>((resolve) => (drained = resolve));
    }
  } catch {
    // the stream failed or was cancelled (or a write threw): end what was sent, and let the stream
    // go, or the transport would keep it registered
    void reader.cancel().catch(() => {});
  } finally {
    res.off("drain", onDrain);
    signal.removeEventListener("abort", onAbort);
  }
}

function echoableId(body: unknown): string | number | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  return typeof (body as { method?: unknown }).method === "string" ? idOf(body) : null;
}
