/**
 * The one HTTP server: routes, authenticates, and turns every failure into a coded answer (JSON,
 * or the route's own form: `/mcp` answers JSON-RPC). No input may crash it: unexpected errors are
 * logged with the request id and answered as INTERNAL without detail.
 */
import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { acceptsSession, bearerFrom, type Authenticator } from "../auth/authenticate.ts";
import { assertCsrfProof, needsCsrfProof } from "../auth/csrf.ts";
import { requestIsSecure, sessionFromCookies } from "../auth/session-cookie.ts";
import { KnotError } from "../errors.ts";
import { effectiveIsAdmin } from "../identity/principal.ts";
import type { Logger } from "../log.ts";
import type { Drain } from "../lifecycle/drain.ts";
import { parseJsonObject, parseParamsBody, readBody } from "./body.ts";
import { runInRequestScope } from "./request-scope.ts";
import { applyConnectionLimits, connectionsCheckingIntervalMs, DEFAULT_HTTP_LIMITS, type HttpLimits } from "./connection-limits.ts";
import { sendError } from "./respond.ts";
import type { ErrorRenderer, PublicContext, Route, RouteMatch, Router } from "./router.ts";

export interface HttpServerOptions {
  readonly router: Router;
  readonly auth: Authenticator;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  /**
   * A foreign handler owning paths outside the route table (the OAuth provider's endpoints); asked
   * first, it answers true when it took the request.
   */
  readonly fallback?: (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
  /** Graceful shutdown: refuses requests once draining and counts those in flight. */
  readonly drain?: Drain;
  /** Request timeouts and connection caps (defaults: DEFAULT_HTTP_LIMITS). */
  readonly limits?: HttpLimits;
  /** The origin browsers reach this server at behind a proxy (`[oauth] public_url`): a same-origin UI request may name it. */
  readonly publicOrigin?: string | null;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function createHttpServer(options: HttpServerOptions): http.Server {
  const limits = options.limits ?? DEFAULT_HTTP_LIMITS;
  const server = http.createServer({ connectionsCheckingInterval: connectionsCheckingIntervalMs(limits) }, (req, res) => {
    // Always the server's own id: a client's x-request-id is kept apart (clientRequestId), never
    // adopted, so two callers cannot share the id their audit rows are found by.
    const header = req.headers["x-request-id"];
    const ids: RequestIds = { requestId: randomUUID(), clientRequestId: typeof header === "string" && REQUEST_ID.test(header) ? header : null };
    res.setHeader("x-request-id", ids.requestId);
    if (options.drain && !options.drain.admit(req)) {
      sendError(res, new KnotError("SHUTTING_DOWN", "the server is shutting down; retry shortly"), { connection: "close" });
      return;
    }
    const started = performance.now();
    res.once("finish", () => options.logger.debug("http request", { requestId: ids.requestId, method: req.method, path: (req.url ?? "").split("?")[0], status: res.statusCode, durationMs: Math.round(performance.now() - started) }));
    const target = locate(options.router, req);
    const matched = "matched" in target && target.matched && "route" in target.matched ? target.matched.route : null;
    const handled = runInRequestScope(ids, () => handle(options, req, res, ids, target))
      .catch((error: unknown) => fail(options.logger, res, error, ids.requestId, matched?.renderError));
    if (!matched?.untracked?.(req)) options.drain?.track(res, handled);
  });
  applyConnectionLimits(server, limits);
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    // A request not received within headersTimeout / requestTimeout is 408; anything else malformed is 400.
    const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? "408 Request Timeout" : "400 Bad Request";
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
  });
  return server;
}

/** The request's ids; the route sees them after authentication (see adoptRunRequestId). */
interface RequestIds {
  requestId: string;
  clientRequestId: string | null;
}

/** The request's URL and route, found before anything is awaited (the drain asks the route). */
type Target = { url: URL; matched: RouteMatch } | { invalid: KnotError };

function locate(router: Router, req: IncomingMessage): Target {
  let url: URL;
  try {
    url = requestUrl(req.url);
  } catch (error) {
    return { invalid: error as KnotError };
  }
  const method = req.method ?? "GET";
  return { url, matched: router.match(method === "HEAD" ? "GET" : method, url.pathname) };
}

async function handle(options: HttpServerOptions, req: IncomingMessage, res: ServerResponse, ids: RequestIds, target: Target): Promise<void> {
  if ("invalid" in target) throw target.invalid;
  const claimed = options.fallback?.(req, res) ?? false;
  if (claimed === true || (claimed !== false && (await claimed))) return;
  const { url, matched } = target;
  const method = req.method ?? "GET";
  if (!matched) throw new KnotError("NOT_FOUND", `no route for ${url.pathname}`);
  if ("allowed" in matched) {
    res.setHeader("allow", [...new Set(matched.allowed)].join(", "));
    throw new KnotError("METHOD_NOT_ALLOWED", `method ${method} is not allowed on ${url.pathname}`);
  }
  const route: Route = matched.route;
  const { maxBodyBytes } = options;
  const base: PublicContext = {
    req, res, url, params: matched.params, requestId: ids.requestId,
    body: () => readBody(req, maxBodyBytes),
    json: async (options) => parseJsonObject(await readBody(req, maxBodyBytes), options?.envelope === true ? 1 : 0),
    bodyParams: async () => parseParamsBody(await readBody(req, maxBodyBytes), req.headers["content-type"]),
  };
  if (route.access === "public") return route.handle(base);
  if (route.beforeAuth?.(req, res)) return;

  const bearer = bearerFrom(req.headers.authorization);
  const session = bearer || !acceptsSession(route.access) ? null : sessionFromCookies(req.headers.cookie, requestIsSecure(req));
  const principal = await options.auth.authenticate({ bearer, session, remoteAddress: req.socket.remoteAddress, route: route.access });
  if (!principal) {
    // A Bearer credential that did not parse was still presented: the challenge says it is invalid (RFC 6750 §3.1).
    const presented = bearer !== null || /^bearer(\s|$)/i.test(req.headers.authorization ?? "");
    res.setHeader("www-authenticate", route.challenge ? route.challenge(presented) : 'Bearer realm="knot-tools"');
    throw new KnotError("UNAUTHENTICATED", session ? "your session has ended: sign in again" : "a valid bearer token is required");
  }
  if (principal.via === "session" && needsCsrfProof(method, route.access)) assertCsrfProof(req.headers, options.publicOrigin ?? null);
  if (principal.via === "loopback") adoptRunRequestId(ids, res);
  if (route.admin && !effectiveIsAdmin(principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: admins only");
  return route.handle({ ...base, requestId: ids.requestId, principal });
}

/**
 * A loopback call is made by the sandbox worker, which sends the id of the run it serves (the
 * server minted it); only the run's own token reaches here, so it is not a client's claim.
 */
function adoptRunRequestId(ids: RequestIds, res: ServerResponse): void {
  if (ids.clientRequestId === null) return;
  ids.requestId = ids.clientRequestId;
  ids.clientRequestId = null;
  res.setHeader("x-request-id", ids.requestId);
}

/**
 * The request target as a URL. Prefixing the origin (rather than resolving against it) keeps a
 * target like `//host/x` a path instead of a protocol-relative URL.
 */
function requestUrl(target: string | undefined): URL {
  const raw = target?.startsWith("/") ? target : "/";
  try {
    return new URL(`http://localhost${raw}`);
  } catch {
    throw new KnotError("BAD_REQUEST", "the request target is not a valid path");
  }
}

function fail(logger: Logger, res: ServerResponse, error: unknown, requestId: string, render: ErrorRenderer = sendError): void {
  const known = error instanceof KnotError ? error : null;
  if (!known) logger.error("request failed", { requestId, error });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A refused body is not read further: close the connection rather than drain a large upload.
  const headers: Record<string, string> = known?.code === "PAYLOAD_TOO_LARGE" ? { connection: "close" } : {};
  render(res, known ?? new KnotError("INTERNAL", "internal error"), headers);
}
