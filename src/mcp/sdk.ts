/**
 * The one place the MCP SDK enters the host: the official TypeScript SDK v2
 * (`@modelcontextprotocol/server` and its Node adapter `@modelcontextprotocol/node`), which speaks
 * both 2025-11-25 (initialize, sessions) and 2026-07-28 (stateless, per-request `_meta`). We use
 * its low-level `Server` (its `McpServer` keeps a static tool registry; our tools are per user), its
 * per-request modern handler, its Streamable HTTP transport for 2025 sessions, its stdio entry,
 * and its wire types. Everything else in src/mcp imports from here.
 */
// The low-level Server is marked deprecated in favour of McpServer; we need it for per-user listing.
import { ProtocolError as SdkProtocolError, ProtocolErrorCode as SdkErrorCode, Server as SdkServer } from "@modelcontextprotocol/server";

export {
  ProtocolError as SdkProtocolError, ProtocolErrorCode as ErrorCode, createMcpHandler, isLegacyRequest, inputRequired,
  createRequestStateCodec, LOG_LEVEL_META_KEY, ResourceNotFoundError, SUPPORTED_PROTOCOL_VERSIONS,
  isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse,
} from "@modelcontextprotocol/server";
/** The stateless revision (the SDK keeps its own list of these internal). */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";
export { serveStdio } from "@modelcontextprotocol/server/stdio";
export { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport, toWebRequest } from "@modelcontextprotocol/node";
export type {
  AuthInfo, CallToolResult, ClientCapabilities, ContentBlock as McpContentBlock, InputRequiredResult, LoggingLevel,
  McpHttpHandler as SdkHttpHandler, ServerContext, Tool as McpTool, Transport, JSONRPCMessage,
} from "@modelcontextprotocol/server";

/**
 * Our handlers let nothing but a protocol error out (mcp-server.ts `guarded`), so any other error
 * here is the SDK's own check of the request's params against the method's schema (a `cursor` that
 * is not a string, say), which it throws as a plain Error: the client would get -32603 "internal
 * error" carrying the raw schema report. It is the caller's mistake: -32602, naming the method.
 */
function asInvalidParams(method: string, error: unknown): unknown {
  if (error instanceof SdkProtocolError || !(error instanceof Error) || error.name !== "Error") return error;
  const { text, where } = schemaReport(error.message);
  return new SdkProtocolError(SdkErrorCode.InvalidParams, `Invalid params for ${method}: ${text}`, { code: "INVALID_ARGUMENT", ...(where ? { where } : {}) });
}

/** The schema library's report (a JSON list of issues) as one line a person reads: `params.cursor: expected string, received number`. */
function schemaReport(message: string): { text: string; where?: string } {
  let issues: unknown;
  try {
    issues = JSON.parse(message);
  } catch {
    return { text: message.slice(0, 300) };
  }
  if (!Array.isArray(issues) || issues.length === 0) return { text: message.slice(0, 300) };
  const lines = issues.slice(0, 3).map((issue: { path?: unknown; message?: unknown }) => {
    const where = Array.isArray(issue.path) ? issue.path.join(".") : "";
    const said = String(issue.message ?? "invalid").replace(/^Invalid input: /, "");
    return { where, text: where ? `${where}: ${said}` : said };
  });
  return { text: lines.map((line) => line.text).join("; ").slice(0, 300), ...(lines[0]?.where ? { where: lines[0].where } : {}) };
}

/**
 * The SDK's low-level Server. Its transport-close hook (run for every 2026-07-28 request, whose
 * transport closes as soon as the result is settled, before the response is written) makes a
 * "Connection closed" SdkError for handlers still waiting; in a completed call none is, and the
 * error's stack capture cost ~50 µs of every call. So when nothing is waiting it is made without a
 * stack; when something is (a call cut off by its client), the error and whatever the abort
 * listeners throw keep their stacks.
 */
export class Server extends SdkServer {
  /** Request handlers of ours still running (the SDK drops its own bookkeeping only after the reply). */
  private running = 0;

  protected override _wrapHandler(method: string, handler: Parameters<SdkServer["_wrapHandler"]>[1]): ReturnType<SdkServer["_wrapHandler"]> {
    const wrapped = super._wrapHandler(method, handler);
    return async (request, ctx) => {
      this.running += 1;
      try {
        return await wrapped(request, ctx);
      } catch (error) {
        throw asInvalidParams(method, error);
      } finally {
        this.running -= 1;
      }
    };
  }

  protected override _onclose(): void {
    if (!this.idle()) return super._onclose();
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super._onclose();
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  /** No handler of ours running and no answer from the client awaited (unknown SDK shape: not idle). */
  private idle(): boolean {
    const waiting = (this as unknown as { _responseHandlers?: unknown })._responseHandlers;
    return this.running === 0 && waiting instanceof Map && waiting.size === 0;
  }
}
