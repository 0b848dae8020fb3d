/**
 * The one place the MCP SDK enters the host: the official TypeScript SDK v2
 * (`@modelcontextprotocol/server` and its Node adapter `@modelcontextprotocol/node`), which speaks
 * both 2025-11-25 (initialize, sessions) and 2026-07-28 (stateless, per-request `_meta`). We use
 * its low-level `Server` (its `McpServer` keeps a static tool registry; our tools are per user), its
 * per-request modern handler, its Streamable HTTP transport for 2025 sessions, its stdio entry,
 * and its wire types. Everything else in src/mcp imports from here.
 */
// The low-level Server is marked deprecated in favour of McpServer; we need it for per-user listing.
export {
  Server, ProtocolError as SdkProtocolError, ProtocolErrorCode as ErrorCode, createMcpHandler, isLegacyRequest, inputRequired,
  createRequestStateCodec, LOG_LEVEL_META_KEY,
} from "@modelcontextprotocol/server";
export { serveStdio } from "@modelcontextprotocol/server/stdio";
export { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport, toNodeHandler, toWebRequest } from "@modelcontextprotocol/node";
export type {
  AuthInfo, CallToolResult, ClientCapabilities, ContentBlock as McpContentBlock, InputRequiredResult, LoggingLevel,
  McpHttpHandler as SdkHttpHandler, ServerContext, Tool as McpTool, Transport, JSONRPCMessage,
} from "@modelcontextprotocol/server";
