/**
 * The 2025-11-25 Streamable HTTP transport (a session, or `[mcp] stateless`) served on node:http
 * through the parsed-body adapter the 2026 handler uses (node-adapter.ts). The SDK's own Node
 * wrapper builds a @hono/node-server listener for every request and converts the request and the
 * response through it; the protocol itself stays the SDK's web-standard transport.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { toParsedBodyNodeHandler, type NodeMcpHandler } from "./node-adapter.ts";
import { WebStandardStreamableHTTPServerTransport, type AuthInfo, type SdkHttpHandler } from "./sdk.ts";

export class StreamableHTTPServerTransport extends WebStandardStreamableHTTPServerTransport {
  private readonly node: NodeMcpHandler = toParsedBodyNodeHandler(
    { fetch: (request: Request, options?: { authInfo?: AuthInfo; parsedBody?: unknown }) => this.handleRequest(request, options) } as unknown as SdkHttpHandler,
    (error) => this.onerror?.(error),
  );

  /** Answers one HTTP request of this transport (POST, GET or DELETE); `parsedBody` is the POST's JSON. */
  serve(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody: unknown): Promise<void> {
    return this.node(req, res, parsedBody);
  }
}
