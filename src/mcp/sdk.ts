/**
 * The one place the MCP SDK enters the host. We use its low-level `Server` (its `McpServer` only
 * takes zod schemas and cannot list tools per user), its Streamable HTTP and stdio transports, and
 * its wire schemas. Everything else in src/mcp imports from here.
 */
// The low-level Server is marked deprecated in favour of McpServer; we need it for per-user listing.
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
export { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
export {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
export type {
  CallToolResult,
  ContentBlock as McpContentBlock,
  LoggingLevel,
  Tool as McpTool,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
export type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";

/** The fields of the SDK's per-request `extra` that our handlers use. */
export interface RequestExtra {
  readonly signal: AbortSignal;
  readonly sessionId?: string | undefined;
  readonly authInfo?: { readonly extra?: Record<string, unknown> } | undefined;
  readonly _meta?: { readonly progressToken?: string | number } & Record<string, unknown>;
  readonly requestId: string | number;
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  sendRequest(request: { method: string; params?: Record<string, unknown> }, schema: never, options?: unknown): Promise<unknown>;
}
