/**
 * The web UI's session cookie. Why: a cookie is sent by the browser on its own, so a cookie alone
 * must never be enough to change anything (CSRF). Three layers (2 and 3 are in csrf.ts):
 *   1. the cookie is `HttpOnly` (page scripts cannot read it) and `SameSite=Strict` (browsers do
 *      not attach it to requests started by another site);
 *   2. every cookie-authenticated request that may change state (any method but GET/HEAD, and
 *      every `/plugins/…` call, whose handlers may act on GET) must carry `x-knot-csrf: 1`, a
 *      header another origin cannot set without a CORS preflight, which this server never grants;
 *   3. when the browser says where the request came from (`Origin`, `Sec-Fetch-Site`), it must be
 *      this same origin.
 * Bearer-token requests carry no ambient credential and need none of this.
 *
 * Over https the cookie is `__Host-knot_session` (Secure, Path=/, no Domain): browsers accept a
 * cookie of that name only from this very https origin, so a page on an http port or a sibling
 * host cannot plant one (cookie tossing), and the unprefixed name is then ignored. Plain-http
 * loopback keeps `knot_session` without Secure (docs/security-access.md §4.12 argues why).
 */
import type { IncomingMessage } from "node:http";

export const SESSION_COOKIE = "knot_session";
/** The name over https. */
export const SECURE_SESSION_COOKIE = "__Host-knot_session";
/** How long a web session lasts (fixed, not sliding). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * Whether the browser talks to us over https: TLS in this process, or a reverse proxy's
 * `x-forwarded-proto: https`. Trusting the header is safe here because it only picks the cookie's
 * *name*: the browser itself enforces what a `__Host-` cookie may be, and a client that lies gets
 * a cookie its browser drops, or reads a name its browser never sent.
 */
export function requestIsSecure(req: IncomingMessage): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return true;
  const proto = req.headers["x-forwarded-proto"];
  return typeof proto === "string" && proto.split(",")[0]!.trim().toLowerCase() === "https";
}

/**
 * The session cookie's value from a `Cookie` header, or null: only the name of the request's scheme
 * counts, and only when it is there once. Two of them mean a second cookie was planted beside ours
 * (on plain http a page on another port can set one with a longer Path, which browsers send
 * first): neither is trusted, so nobody is signed in by a cookie someone else chose.
 */
export function sessionFromCookies(header: string | undefined, secure = false): string | null {
  if (!header) return null;
  const name = secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  let found: string | null = null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    if (found !== null) return null;
    found = part.slice(eq + 1).trim();
  }
  return found !== null && /^[A-Za-z0-9_-]{1,200}$/.test(found) ? found : null;
}

/** `Set-Cookie` for a new session (or, with `secret` null, one that clears it). */
export function sessionCookieHeader(secret: string | null, options: { secure: boolean; maxAgeSeconds?: number }): string {
  const attributes = ["Path=/", "HttpOnly", "SameSite=Strict", ...(options.secure ? ["Secure"] : [])];
  const name = options.secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  if (secret === null) return [`${name}=`, ...attributes, "Max-Age=0"].join("; ");
  return [`${name}=${secret}`, ...attributes, `Max-Age=${options.maxAgeSeconds ?? Math.floor(SESSION_TTL_MS / 1000)}`].join("; ");
}
