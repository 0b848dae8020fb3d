/**
 * What `/mcp` refuses at the HTTP level before any handler (found by probing it as a client would):
 * a method the transport does not serve gets 405 with `Allow`, a protocol version the server does
 * not speak gets -32022 naming those it does, a compressed body 415, and a 2026-07-28 POST whose `Accept` rules out an
 * answer the server may give (JSON, or an event stream once the call reports progress) gets 406,
 * as a 2025-11-25 one does from the SDK. Each refusal carries the request's id when it was readable.
 */
import type { IncomingMessage } from "node:http";
import { unsupportedVersionError } from "./jsonrpc-shapes.ts";
import { MODERN_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "./sdk.ts";

export interface TransportRefusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly rpcCode: number;
  readonly headers?: Record<string, string>;
  readonly data?: Record<string, unknown>;
}

/** Every revision this server answers: the stateless one first, then those of the session era. */
const SERVED_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request's MCP-Protocol-Version header when it names a revision this server does not serve. */
function unsupportedVersion(req: IncomingMessage): TransportRefusal | null {
  const named = header(req, "mcp-protocol-version")?.trim();
  if (named === undefined || SERVED_VERSIONS.includes(named)) return null;
  // `supported`: what a request of this kind may name, as server/discover lists it (a session-era client learns its own at initialize).
  const error = unsupportedVersionError(named, `; this server speaks ${MODERN_PROTOCOL_VERSION} and, after initialize, ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`);
  return { status: 400, code: "UNSUPPORTED_PROTOCOL_VERSION", rpcCode: error.code, message: error.message, data: error.data };
}

const isModernHeader = (req: IncomingMessage): boolean => (header(req, "mcp-protocol-version")?.trim() ?? "") >= MODERN_PROTOCOL_VERSION;

/**
 * A method other than POST: 2026-07-28 is POST only (`subscriptions/listen` replaced the GET
 * stream), a stateless server serves nothing else, and without a session there is no stream to
 * open (405, as a client probing for the GET stream expects; DELETE needs the session it ends).
 */
function refusedMethod(req: IncomingMessage, stateless: boolean): TransportRefusal | null {
  const method = req.method ?? "GET";
  if (method === "POST") return null;
  const postOnly = (why: string): TransportRefusal => ({ status: 405, code: "METHOD_NOT_ALLOWED", rpcCode: -32000, message: `Method not allowed: ${why}`, headers: { allow: "POST" } });
  if (stateless) return postOnly("this server is stateless (POST only)");
  if (isModernHeader(req)) return postOnly(`protocol revision ${MODERN_PROTOCOL_VERSION} is served by POST only (subscriptions/listen replaces the GET stream)`);
  if (header(req, "mcp-session-id")) return null; // the session's transport answers GET and DELETE (and 405 to the rest)
  if (method === "DELETE") return { status: 400, code: "BAD_REQUEST", rpcCode: -32600, message: "Bad Request: DELETE ends a session: send its mcp-session-id header" };
  return { status: 405, code: "METHOD_NOT_ALLOWED", rpcCode: -32000, message: `Method not allowed: ${method} needs a session (send initialize first), or use POST`, headers: { allow: "GET, POST, DELETE" } };
}

/** Whether an Accept header admits `type` (e.g. "application/json"), wildcards included. */
function accepts(accept: string, type: string): boolean {
  const [major] = type.split("/");
  return accept.split(",").some((part) => {
    const [range = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    if (params.some((param) => /^q\s*=\s*0(\.0*)?$/.test(param))) return false;
    return range === type || range === "*/*" || range === `${major}/*`;
  });
}

/** A 2026-07-28 POST whose Accept rules out JSON or an event stream (a listen stream needs only the latter). */
export function refusedAccept(req: IncomingMessage, method: unknown): TransportRefusal | null {
  const accept = header(req, "accept") ?? "";
  const needed = method === "subscriptions/listen" ? ["text/event-stream"] : ["application/json", "text/event-stream"];
  const missing = needed.filter((type) => !accepts(accept, type));
  if (missing.length === 0) return null;
  return { status: 406, code: "NOT_ACCEPTABLE", rpcCode: -32600, message: `Not Acceptable: the Accept header must admit ${needed.join(" and ")} (it does not admit ${missing.join(" or ")})` };
}

/** A body sent compressed (or in any coding but identity): it is read as sent, so it would only fail to parse (-32700). Decided before the body is parsed. */
export function encodedBody(req: IncomingMessage): TransportRefusal | null {
  const coding = header(req, "content-encoding")?.trim().toLowerCase();
  if (coding === undefined || coding === "" || coding === "identity") return null;
  return { status: 415, code: "UNSUPPORTED_MEDIA_TYPE", rpcCode: -32600, message: `Unsupported Media Type: this server takes request bodies without a Content-Encoding (got ${JSON.stringify(coding.slice(0, 32))})`, headers: { "accept-encoding": "identity" } };
}

/**
 * The refusals decided before the request's revision is known: the method, then the version
 * header (an `initialize` with one the server does not speak was refused by the SDK as well: -32020).
 */
export function transportRefusal(req: IncomingMessage, stateless: boolean): TransportRefusal | null {
  return refusedMethod(req, stateless) ?? unsupportedVersion(req);
}
