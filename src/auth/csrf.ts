/**
 * The CSRF proof a cookie-authenticated request must carry (layers 2 and 3 of session-cookie.ts):
 * the `x-knot-csrf: 1` header, which another origin cannot set without a CORS preflight this
 * server never grants, and, when the browser says where the request came from, this same origin.
 * Bearer-token requests carry no ambient credential and need none of this.
 */
import type { IncomingHttpHeaders } from "node:http";
import { KnotError } from "../errors.ts";
import type { RouteClass } from "./authenticate.ts";

export const CSRF_HEADER = "x-knot-csrf";

/** Whether a cookie-authenticated request of this method on this route class needs the CSRF proof. */
export function needsCsrfProof(method: string, route: RouteClass | "public"): boolean {
  return route === "plugin" || (method !== "GET" && method !== "HEAD");
}

/**
 * Throws PERMISSION_DENIED unless a cookie-authenticated request proves it came from this UI
 * (the Origin the browser reports must name the request's own Host, or the configured public
 * origin: a reverse proxy may pass the request on with its own Host, such as 127.0.0.1:7700).
 */
export function assertCsrfProof(headers: IncomingHttpHeaders, publicOrigin: string | null = null): void {
  if (headers[CSRF_HEADER] !== "1") {
    throw new KnotError("PERMISSION_DENIED", `permission denied: requests signed in by the session cookie must send the ${CSRF_HEADER}: 1 header`);
  }
  const site = headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none") {
    throw new KnotError("PERMISSION_DENIED", "permission denied: cross-site request refused");
  }
  const origin = headers.origin;
  if (typeof origin === "string" && origin !== "null") {
    let named: URL | null = null;
    try {
      named = new URL(origin);
    } catch {
      named = null;
    }
    const ours = named !== null && (named.host === headers.host || (publicOrigin !== null && named.origin === new URL(publicOrigin).origin));
    if (!ours) throw new KnotError("PERMISSION_DENIED", "permission denied: cross-origin request refused");
  } else if (origin === "null") {
    throw new KnotError("PERMISSION_DENIED", "permission denied: cross-origin request refused");
  }
}
