/**
 * CORS for /mcp, so browser MCP clients can connect. Threat: any web page driving a user's
 * browser against the server. Guarantee: only origins listed in `[mcp] cors_origins` get CORS
 * headers (a preflight from any other origin is answered without them, so the browser refuses),
 * and the bearer token is still required on every real request; no cookies are involved.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isParamHeaderName } from "../validation/mcp-param-headers.ts";

const ALLOW_HEADERS = "authorization, content-type, accept, last-event-id, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, x-request-id";
const EXPOSE_HEADERS = "mcp-session-id, mcp-protocol-version, www-authenticate, x-request-id";

export interface Cors {
  /** Whether this Origin header names a configured origin. */
  allows(origin: string | undefined): boolean;
  /** Answers a preflight (OPTIONS) in full. */
  preflight(req: IncomingMessage, res: ServerResponse): void;
  /** Adds the CORS headers to the answer of a real request from an allowed origin. */
  decorate(req: IncomingMessage, res: ServerResponse): void;
}

export function createCors(origins: readonly string[]): Cors {
  const allowed = new Set(origins);
  const allows = (origin: string | undefined) => origin !== undefined && allowed.has(origin.toLowerCase());
  return {
    allows,
    preflight(req, res) {
      const origin = req.headers.origin;
      if (!allows(origin)) {
        res.writeHead(204, { vary: "origin" }).end();
        return;
      }
      // Mcp-Param-* headers (SEP-2243) are named per tool: echo what the browser asks for (any name
      // the load check lets a tool declare), plus ours.
      const asked = String(req.headers["access-control-request-headers"] ?? "").toLowerCase();
      const extra = asked.split(",").map((h) => h.trim()).filter(isParamHeaderName);
      res.writeHead(204, {
        "access-control-allow-origin": origin!, vary: "origin", "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
        "access-control-allow-headers": [ALLOW_HEADERS, ...extra].join(", "), "access-control-max-age": "600",
      }).end();
    },
    decorate(req, res) {
      const origin = req.headers.origin;
      if (!allows(origin)) return;
      res.setHeader("access-control-allow-origin", origin!);
      res.setHeader("access-control-expose-headers", EXPOSE_HEADERS);
      res.setHeader("vary", "origin");
    },
  };
}
