import type { IncomingMessage } from "node:http";
import { KnotError } from "../errors.ts";
import { assertJsonDepth } from "../validation/json-depth.ts";

/** Reads the whole body, refusing (413) as soon as it passes `maxBytes`, without buffering more. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(maxBytes: number): KnotError {
  return new KnotError("PAYLOAD_TOO_LARGE", `request body is over the ${maxBytes} byte limit`);
}

/** An empty body is `{}`; otherwise it must be a JSON object. */
export function parseJsonObject(body: Buffer): Record<string, unknown> {
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
  assertJsonDepth(value, "the request body");
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
        Object.assign(out, parsed);
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
