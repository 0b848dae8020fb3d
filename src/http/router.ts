/**
 * A small route table: method + path pattern (`:name` segments), the credential class the route
 * accepts, and whether it is for admins. The server authenticates before a handler runs, so a
 * handler never sees an unauthenticated or wrongly-classed request.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RouteClass } from "../auth/authenticate.ts";
import type { Principal } from "../identity/principal.ts";

export interface PublicContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  readonly requestId: string;
  /** The body as a JSON object (empty → {}), read under the size limit. */
  json(): Promise<Record<string, unknown>>;
  /** The body as params: a JSON object, or form-encoded fields (parseParamsBody). */
  bodyParams(): Promise<Record<string, unknown>>;
}

export interface HttpContext extends PublicContext {
  readonly principal: Principal;
}

interface RouteBase {
  readonly method: string | readonly string[];
  readonly path: string;
}

export interface AuthedRoute extends RouteBase {
  /** Which credentials the route accepts (loopback tokens only reach "plugin" and "api-read"). */
  readonly access: RouteClass;
  readonly admin?: boolean;
  handle(ctx: HttpContext): Promise<void> | void;
}

export interface PublicRoute extends RouteBase {
  readonly access: "public";
  handle(ctx: PublicContext): Promise<void> | void;
}

export type Route = AuthedRoute | PublicRoute;

interface Compiled {
  readonly route: Route;
  readonly regex: RegExp;
  readonly names: readonly string[];
}

export interface Router {
  match(method: string, pathname: string): { route: Route; params: Record<string, string> } | { allowed: string[] } | null;
}

export function createRouter(routes: readonly Route[]): Router {
  const compiled: Compiled[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.path.split("/").map((seg) => {
      if (!seg.startsWith(":")) return seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(seg.slice(1));
      return "([^/]+)";
    }).join("/");
    return { route, regex: new RegExp(`^${source}$`), names };
  });
  return {
    match(method, pathname) {
      const allowed: string[] = [];
      for (const { route, regex, names } of compiled) {
        const m = regex.exec(pathname);
        if (!m) continue;
        const methods = typeof route.method === "string" ? [route.method] : route.method;
        if (!methods.includes(method)) {
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
