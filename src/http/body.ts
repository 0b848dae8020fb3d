import type { IncomingMessage } from "node:http";
import { KnotError } from "../errors.ts";
import { assertJsonDepth, MAX_JSON_DEPTH } from "../validation/json-depth.ts";

/**
 * Reads the whole body, refusing (413) as soon as it passes `maxBytes`, without buffering more
 * (reading stops there). Plain `data`/`end` listeners rather than the stream's async iterator:
 * this runs on every POST, and the iterator's promise machinery cost ~20 µs of a ~1 ms MCP call.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > maxBytes) return Promise.reject(tooLarge(maxBytes));
  // Read already (a second read of one request): nothing is left, as the iterator would say.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(aborted());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error: Error | null) => {
      req.off("data", onData).off("end", onEnd).off("error", settle).off("close", onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      settle(tooLarge(maxBytes));
      req.pause(); // read no more; the 413 closes the connection
    };
    const onEnd = () => settle(null);
    // Closed before the end: the client went away mid-body.
    const onClose = () => settle(aborted());
    req.on("data", onData).on("end", onEnd).on("error", settle).on("close", onClose);
    req.resume(); // a "data" listener does not restart a stream someone paused; the iterator did
  });
}

/** The client went away before its body ended (the error the stream's iterator gave). */
const aborted = () => Object.assign(new Error("aborted"), { code: "ECONNRESET" });

function tooLarge(maxBytes: number): KnotError {
  return new KnotError("PAYLOAD_TOO_LARGE", `request body is over the ${maxBytes} byte limit`);
}

/** An empty body is `{}`; otherwise it must be a JSON object, nested at most MAX_JSON_DEPTH (+ `envelopeLevels`). */
export function parseJsonObject(body: Buffer, envelopeLevels = 0): Record<string, unknown> {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw new KnotError("INVALID_JSON", `request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new KnotError("BAD_REQUEST", "request body must be a JSON object");
  }
  assertJsonDepth(value, "the request body", MAX_JSON_DEPTH + envelopeLevels);
  return value as Record<string, unknown>;
}

/**
 * Query parameters as params: repeated keys become lists. A `params` key holding a JSON object is
 * expanded, so a GET can carry typed params (the loopback's GET calls use it); it is held to the
 * same nesting limit as a body (INVALID_ARGUMENT).
 */
export function queryParams(search: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(search.keys())) {
    const values = search.getAll(key);
    // defineProperty: a key named `__proto__` stays a plain own param, never the object's prototype.
    Object.defineProperty(out, key, { value: values.length === 1 ? values[0] : values, enumerable: true, writable: true, configurable: true });
  }
  const packed = out.params;
  if (typeof packed === "string" && packed.startsWith("{")) {
    try {
      const parsed = JSON.parse(packed) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
        assertJsonDepth(parsed, "the params query parameter");
        delete out.params;
        for (const [key, value] of Object.entries(parsed)) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      }
    } catch (error) {
      if (error instanceof KnotError) throw error;
      // not JSON: keep it as the plain string parameter it is
    }
  }
  return out;
}

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/**
 * A request body as params: form-encoded (`application/x-www-form-urlencoded`, what an HTML form
 * posts) reads exactly like a query string — repeated keys become lists, a `params` key may carry
 * JSON — and anything else must be a JSON object. Both are read under the same byte limit and
 * nesting limit.
 */
export function parseParamsBody(body: Buffer, contentType: string | undefined): Record<string, unknown> {
  if (contentType !== undefined && FORM_TYPE.test(contentType)) {
    return queryParams(new URLSearchParams(body.toString("utf8")));
  }
  return parseJsonObject(body);
}
