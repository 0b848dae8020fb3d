/**
 * A small route table: method + path pattern (`:name` segments), the credential class the route
 * accepts, and whether it is for admins. The server authenticates before a handler runs, so a
 * handler never sees an unauthenticated or wrongly-classed request. A route may also set how its
 * refusals are written, its own body limit, and whether a shutdown waits for it (`/mcp` uses all three).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RouteClass } from "../auth/authenticate.ts";
import type { KnotError } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";

export interface PublicContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  readonly requestId: string;
  /** The raw body, read under the route's size limit (413 PAYLOAD_TOO_LARGE past it). */
  body(): Promise<Buffer>;
  /** The body as a JSON object (empty → {}), read under the size limit. */
  /**
   * The body as a JSON object. `envelope`: the body wraps the caller's value (`{ args }`), so it may
   * nest one level more than the value, which the route checks itself (assertJsonDepth).
   */
  json(options?: { envelope?: boolean }): Promise<Record<string, unknown>>;
  /** The body as params: a JSON object, or form-encoded fields (parseParamsBody). */
  bodyParams(): Promise<Record<string, unknown>>;
}

export interface HttpContext extends PublicContext {
  readonly principal: Principal;
}

/** Writes a refusal: the server's default is `{ error, code }` JSON (respond.ts sendError). */
export type ErrorRenderer = (res: ServerResponse, error: KnotError, headers: Record<string, string>) => void;

interface RouteBase {
  /** One method, several, or `*` for any (the handler answers the methods it does not serve). */
  readonly method: string | readonly string[];
  readonly path: string;
  /** How this route's refusals are written (default: JSON `{ error, code }`). */
  readonly renderError?: ErrorRenderer;
  /** Long-lived requests (a notification stream) that a graceful shutdown does not wait for. */
  readonly untracked?: (req: IncomingMessage) => boolean;
}

export interface AuthedRoute extends RouteBase {
  /** Which credentials the route accepts (loopback tokens only reach "plugin" and "api-read"). */
  readonly access: RouteClass;
  readonly admin?: boolean;
  /** Runs before authentication; answers true when it has answered the request itself (a refusal). */
  readonly beforeAuth?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The `WWW-Authenticate` value of a 401 (default `Bearer realm="knot-tools"`). */
  readonly challenge?: (tokenPresented: boolean) => string;
  handle(ctx: HttpContext): Promise<void> | void;
}

export interface PublicRoute extends RouteBase {
  readonly access: "public";
  handle(ctx: PublicContext): Promise<void> | void;
}

export type Route = AuthedRoute | PublicRoute;

export type RouteMatch = { route: Route; params: Record<string, string> } | { allowed: string[] } | null;

export interface Router {
  match(method: string, pathname: string): RouteMatch;
}

interface Compiled {
  readonly route: Route;
  readonly regex: RegExp;
  readonly names: readonly string[];
  readonly methods: readonly string[] | "any";
}

export function createRouter(routes: readonly Route[]): Router {
  const compiled: Compiled[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.path.split("/").map((seg) => {
      if (!seg.startsWith(":")) return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(seg.slice(1));
      return "([^/]+)";
    }).join("/");
    const methods = route.method === "*" ? "any" : typeof route.method === "string" ? [route.method] : route.method;
    return { route, regex: new RegExp(`^${source}$`), names, methods };
  });
  // A path without `:` segments is looked up directly, with every route (in table order) that
  // matches it; any other path tries only the patterned routes. Same answers as one ordered scan.
  const patterned = compiled.filter((c) => c.names.length > 0);
  const byPath = new Map<string, Compiled[]>();
  for (const { route } of compiled) {
    if (!route.path.includes("/:") && !byPath.has(route.path)) byPath.set(route.path, compiled.filter((c) => c.regex.test(route.path)));
  }
  return {
    match(method, pathname) {
      const allowed: string[] = [];
      for (const { route, regex, names, methods } of byPath.get(pathname) ?? patterned) {
        const m = regex.exec(pathname);
        if (!m) continue;
        if (methods !== "any" && !methods.includes(method)) {
          allowed.push(...methods);
          continue;
        }
        const params: Record<string, string> = {};
        names.forEach((name, i) => (params[name] = safeDecode(m[i + 1] ?? "")));
        return { route, params };
      }
      return allowed.length > 0 ? { allowed } : null;
    },
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return "\u0000invalid";
  }
}
