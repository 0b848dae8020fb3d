/**
 * `/mcp` over Streamable HTTP, both revisions: a request carrying the 2026-07-28 `_meta` envelope
 * goes to the SDK's stateless per-request handler (any instance can answer it); anything else is
 * 2025-11-25 and keeps today's sessions (or stateless serving, `[mcp] stateless = true`). Threats: DNS rebinding from a browser, anonymous callers, callers
 * without the MCP permission, and a session id used with another user's token. Guarantees, in
 * order, before the SDK sees a byte: Host/Origin checked (`beforeAuth`); a valid bearer token (the
 * HTTP server, src/http/routes/mcp-route.ts: 401 with `WWW-Authenticate` otherwise; loopback
 * tokens and session cookies are not accepted here); `knot.mcp` held (admins pass); in stateful
 * mode, a session is served only to the user who opened it. Each request's own principal travels
 * to the handlers in `authInfo`, so listing and calling use the current token.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuditLog } from "../audit/audit-log.ts";
import type { Principal } from "../identity/principal.ts";
import type { Cors } from "./cors.ts";
import type { HostCheck } from "./host-check.ts";
import { auditRefusedCalls, isInitialize, rpcError, rpcErrorFor, UNREADABLE } from "./http-replies.ts";
import { parseLimitedMcpBody } from "./request-limits.ts";
import type { ParamHeaderCheck } from "./param-header-check.ts";
import { isLegacyRequest, MODERN_PROTOCOL_VERSION, StreamableHTTPServerTransport, toWebRequest, type AuthInfo, type Server } from "./sdk.ts";
import { malformedToolCall, MAX_MESSAGE_DEPTH, setAsideBadArguments, tooDeepForSdk, type SetAside } from "./set-aside.ts";
import type { SessionRegistry } from "./sessions.ts";
import { mcpRefusal } from "./tool-gates.ts";
import { idOf } from "./jsonrpc-shapes.ts";
import { encodedBody, refusedAccept, transportRefusal, type TransportRefusal } from "./transport-rules.ts";

export interface HttpHandlerDeps {
  readonly audit: AuditLog;
  readonly hostCheck: HostCheck;
  readonly sessions: SessionRegistry;
  readonly stateless: boolean;
  readonly cors: Cors;
  /** A fresh SDK server whose handlers read the principal from `authInfo.extra` (see authInfoFor). */
  newServer(stateful: boolean): Server;
  /** The 2026-07-28 handler of this user (each user's subscription streams hear only their own changes). */
  modernFor(userId: string): ModernHandler;
  /** 2026-07-28: `Mcp-Param-*` headers against the `tools/call` body (the SDK checks them only for McpServer). */
  readonly paramHeaders?: ParamHeaderCheck;
}

/** JSON-RPC HeaderMismatch (2026-07-28): a routing header disagrees with the body. */
const HEADER_MISMATCH = -32020;

export type ModernHandler = (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown) => Promise<void>;

/** What each HTTP request hands the SDK handlers. */
export interface RequestAuth {
  readonly principal: Principal;
  readonly requestId: string;
  readonly closed: AbortSignal;
  /** Non-object `arguments` of this request's tool calls, by JSON-RPC id (see set-aside.ts). */
  readonly setAside: SetAside;
}

/** What the HTTP server's `/mcp` route (src/http/routes/mcp-route.ts) calls, in this order. */
export interface McpHttpEdge {
  /** Answers a CORS preflight (OPTIONS) in full: it carries no token and grants nothing by itself. */
  preflight(req: IncomingMessage, res: ServerResponse): void;
  /** Before authentication: CORS headers for an allowed origin, then the Host/Origin check; true when it refused. */
  beforeAuth(req: IncomingMessage, res: ServerResponse): boolean;
  /** The notification streams (GET, 2026 `subscriptions/listen`), which never end by themselves. */
  longLived(req: IncomingMessage): boolean;
  /** An authenticated request; `body` is the raw POST body (read under the size limit), else undefined. */
  serve(req: IncomingMessage, res: ServerResponse, request: { principal: Principal; requestId: string; body: Buffer | undefined }): Promise<void>;
}

export function createMcpHttpEdge(deps: HttpHandlerDeps): McpHttpEdge {
  return {
    preflight: (req, res) => deps.cors.preflight(req, res),
    beforeAuth(req, res) {
      deps.cors.decorate(req, res);
      const refusedHost = deps.hostCheck(req);
      if (refusedHost) rpcError(res, 403, "HOST_NOT_ALLOWED", refusedHost);
      return refusedHost !== null;
    },
    longLived: (req) => req.method === "GET" || req.headers["mcp-method"] === "subscriptions/listen",
    serve: (req, res, { principal, requestId, body: raw }) => handleMcp(deps, req, res, principal, requestId, raw),
  };
}

async function handleMcp(deps: HttpHandlerDeps, req: IncomingMessage, res: ServerResponse, principal: Principal, requestId: string, raw: Buffer | undefined): Promise<void> {
  const encoded = raw === undefined ? null : encodedBody(req);
  if (encoded) return refuse(res, encoded, null);
  let body = raw === undefined ? undefined : parseLimitedMcpBody(res, raw);
  if (body === UNREADABLE) return;
  const id = idOf(body);
  const refused = mcpRefusal(principal);
  if (refused) {
    await auditRefusedCalls(deps.audit, principal, body, "PERMISSION_DENIED", requestId);
    return rpcError(res, 403, "PERMISSION_DENIED", `permission denied: ${refused.detail}`, {}, undefined, { id });
  }
  const transport = transportRefusal(req, deps.stateless);
  if (transport) return refuse(res, transport, id);
  const setAside: SetAside = new Map();
  body = setAsideBadArguments(body, setAside);
  // Deep arguments are set aside above (refused with their shape kept); anything else this deep
  // (in params, in _meta) would overflow the SDK's recursive checks: a 500 and no audit row.
  if (tooDeepForSdk(body)) {
    await auditRefusedCalls(deps.audit, principal, body, "INVALID_ARGUMENT", requestId);
    return rpcError(res, 400, "INVALID_ARGUMENT", `the request is nested more than ${MAX_MESSAGE_DEPTH} levels deep`, {}, -32602, { id });
  }
  const malformed = malformedToolCall(body);
  if (malformed) {
    await auditRefusedCalls(deps.audit, principal, body, "INVALID_ARGUMENT", requestId);
    return rpcErrorFor(res, (body as { id?: unknown }).id, -32602, `Invalid params: ${malformed.problem}`, { code: "INVALID_ARGUMENT", where: malformed.where });
  }
  (req as IncomingMessage & { auth?: AuthInfo }).auth = authInfoFor(principal, requestId, res, setAside);
  if (req.method === "POST" && (await isModern(req, body))) {
    const unacceptable = refusedAccept(req, (body as { method?: unknown } | undefined)?.method);
    if (unacceptable) return refuse(res, unacceptable, id);
    const mismatch = await deps.paramHeaders?.(principal, body, req);
    if (mismatch) {
      await auditRefusedCalls(deps.audit, principal, body, "BAD_REQUEST", requestId);
      return rpcError(res, 400, "BAD_REQUEST", `Bad Request: the request headers and body disagree: ${mismatch}`, {}, HEADER_MISMATCH, { id });
    }
    return deps.modernFor(principal.user.id)(req, res, body);
  }
  if (deps.stateless) await serveStateless(deps, req, res, body);
  else await serveStateful(deps, req, res, body, principal, requestId, id);
}

function refuse(res: ServerResponse, refusal: TransportRefusal, id: string | number | null): void {
  rpcError(res, refusal.status, refusal.code, refusal.message, refusal.headers, refusal.rpcCode, { id, ...(refusal.data ? { data: refusal.data } : {}) });
}

function authInfoFor(principal: Principal, requestId: string, res: ServerResponse, setAside: SetAside): AuthInfo {
  const closed = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) closed.abort();
  });
  const extra: RequestAuth = { principal, requestId, closed: closed.signal, setAside };
  return { token: principal.tokenId ?? "", clientId: principal.user.id, scopes: [], extra: extra as unknown as Record<string, unknown> };
}

async function serveStateful(deps: HttpHandlerDeps, req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal, requestId: string, id: string | number | null): Promise<void> {
  const header = req.headers["mcp-session-id"];
  const sessionId = Array.isArray(header) ? header[0] : header;
  if (sessionId) {
    const session = deps.sessions.get(sessionId);
    if (!session) return rpcError(res, 404, "NOT_FOUND", "Session not found: initialize a new session", {}, undefined, { id });
    if (session.userId !== principal.user.id) {
      await auditRefusedCalls(deps.audit, principal, body, "PERMISSION_DENIED", requestId);
      return rpcError(res, 403, "PERMISSION_DENIED", "permission denied: this session belongs to another user", {}, undefined, { id });
    }
    return session.transport.handleRequest(req, res, body);
  }
  if (!isInitialize(body)) {
    return rpcError(res, 400, "BAD_REQUEST", "Bad Request: no valid mcp-session-id header; send initialize first", {}, undefined, { id });
  }
  const server = deps.newServer(true);
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => deps.sessions.add({ id, userId: principal.user.id, tokenId: principal.tokenId, server, transport, lastSeen: Date.now() }),
    onsessionclosed: (id) => deps.sessions.remove(id),
  });
  transport.onclose = () => {
    if (transport.sessionId) deps.sessions.remove(transport.sessionId);
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
  if (!transport.sessionId) await server.close();
}

async function serveStateless(deps: HttpHandlerDeps, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = deps.newServer(false);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.once("close", () => void server.close().catch(() => {}));
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

const ENVELOPE_CLAIM = "io.modelcontextprotocol/protocolVersion";

/**
 * Whether the SDK's modern (2026-07-28) path answers this POST. The two certain cases are decided
 * here without building a web Request (a hot path): an envelope claim in `_meta` is modern; no
 * claim and no (or a pre-2026) MCP-Protocol-Version header is 2025. Anything else asks the SDK's own classifier.
 */
async function isModern(req: IncomingMessage, body: unknown): Promise<boolean> {
  const first = Array.isArray(body) ? body[0] : body;
  const meta = (first as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta;
  if (!Array.isArray(body) && typeof meta === "object" && meta !== null && Object.hasOwn(meta, ENVELOPE_CLAIM)) return true;
  const header = req.headers["mcp-protocol-version"];
  // Dated revisions sort as text: one before 2026-07-28 without a claim is 2025-era.
  if (!Array.isArray(body) && meta?.[ENVELOPE_CLAIM] === undefined && (header === undefined || (typeof header === "string" && /^\d{4}-\d{2}-\d{2}$/.test(header.trim()) && header.trim() < MODERN_PROTOCOL_VERSION))) return false;
  return !(await isLegacyRequest(await toWebRequest(req, body), body));
}
