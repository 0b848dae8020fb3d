/**
 * DNS-rebinding protection for /mcp. Threat: a web page whose host name resolves to 127.0.0.1
 * makes the browser send requests to this server. Guarantee: a request is served only when its
 * Host header (and its Origin header, when present) names this server as 127.0.0.1, localhost or
 * [::1] on the port the request arrived on, or a host listed in config `mcp.allowed_hosts`; an
 * Origin may also be one of `mcp.cors_origins` (browser clients the operator allowed).
 */
import type { IncomingMessage } from "node:http";

/** Answers why the request is refused, or null when its Host and Origin are allowed. */
export type HostCheck = (req: IncomingMessage) => string | null;

export function createHostCheck(allowedHosts: readonly string[], corsOrigins: readonly string[] = []): HostCheck {
  const browserOrigins = new Set(corsOrigins);
  const configured = new Set(allowedHosts.map((host) => host.toLowerCase()));
  return (req) => {
    const port = req.socket.localPort;
    const allowed = (host: string) => configured.has(host) || host === `127.0.0.1:${port}` || host === `localhost:${port}` || host === `[::1]:${port}`;
    const host = (req.headers.host ?? "").toLowerCase();
    if (!allowed(host)) return `host "${host}" is not allowed (add it to mcp.allowed_hosts if this server is reached through it)`;
    const origin = req.headers.origin;
    if (origin === undefined || browserOrigins.has(origin.toLowerCase())) return null;
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return "origin is not a valid URL";
    }
    return allowed(originHost) ? null : `origin "${origin}" is not allowed`;
  };
}
