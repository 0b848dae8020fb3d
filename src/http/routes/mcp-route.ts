/**
 * `/mcp` as an ordinary route. The server authenticates it like any other (bearer tokens only:
 * the "mcp" route class takes neither session cookies nor loopback tokens) and reads its POST body
 * under the server's limit; three flags make it differ from the JSON routes: refusals are JSON-RPC
 * errors (a 401 carries the OAuth challenge), the notification streams are not waited for by a
 * graceful shutdown, and CORS and the Host/Origin check run before authentication. The preflight
 * (OPTIONS) carries no token, so it is a public route of its own.
 */
import { rpcError } from "../../mcp/http-replies.ts";
import type { McpHttpEdge } from "../../mcp/http-handler.ts";
import type { ErrorRenderer, Route } from "../router.ts";

export const MCP_PATH = "/mcp";

export interface McpRouteOptions {
  readonly edge: McpHttpEdge;
  /** The 401's `WWW-Authenticate` value (src/oauth/www-authenticate.ts). */
  challenge(tokenPresented: boolean): string;
}

const renderError: ErrorRenderer = (res, error, headers) => rpcError(res, error.status, String(error.code), error.message, headers);

export function mcpRoutes({ edge, challenge }: McpRouteOptions): Route[] {
  return [
    { method: "OPTIONS", path: MCP_PATH, access: "public", renderError, handle: ({ req, res }) => edge.preflight(req, res) },
    {
      // Any method: the transport answers those it does not serve (405 when stateless, the SDK's own otherwise).
      method: "*", path: MCP_PATH, access: "mcp", renderError, challenge,
      beforeAuth: edge.beforeAuth, untracked: edge.longLived,
      handle: async ({ req, res, principal, requestId, body }) => edge.serve(req, res, { principal, requestId, body: req.method === "POST" ? await body() : undefined }),
    },
  ];
}
