/**
 * One low-level SDK `Server` (per HTTP session, per stateless request, or for stdio). It answers
 * `tools/list` and `tools/call` for whoever the current request authenticated as, forwards a running
 * tool's progress and log events as notifications, and lets nothing but a deliberate protocol error
 * leave a handler (anything else becomes "internal error"; the detail goes to the host log).
 */
import { randomUUID } from "node:crypto";
import type { RunEvent } from "../../sandbox/protocol.ts";
import { KnotError } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import type { Logger } from "../log.ts";
import type { ToolRunner } from "../tools/tool-runner.ts";
import { RUNTIME_VERSION } from "../version.ts";
import type { CallToolFn } from "./call-tool.ts";
import { toMcpTool } from "./listing.ts";
import { ProtocolError } from "./protocol-error.ts";
import type { ToolResolver } from "./resolver.ts";
import {
  CallToolRequestSchema, CreateMessageResultSchema, ElicitResultSchema, ErrorCode, ListToolsRequestSchema, McpError, Server, SetLevelRequestSchema,
  type LoggingLevel, type RequestExtra,
} from "./sdk.ts";
import type { CallContext } from "./tool-types.ts";

export interface ServerCore {
  readonly resolver: ToolResolver;
  readonly runner: ToolRunner;
  readonly callTool: CallToolFn;
  readonly logger: Logger;
}

export interface ConnectionOptions {
  /** The caller of one request: HTTP answers the request's authenticated principal; stdio re-reads its user. */
  principalOf(extra: RequestExtra): Promise<Principal>;
  /** Aborted when the HTTP request carrying the call goes away. */
  requestSignal?(extra: RequestExtra): AbortSignal | undefined;
  /** The host's request id for logs and the audit log. */
  requestIdOf?(extra: RequestExtra): string | undefined;
  /**
   * A live connection (a stateful session or stdio): it can receive `notifications/tools/list_changed`
   * and answer requests a tool sends the client (sampling, elicitation). Stateless requests cannot.
   */
  readonly stateful: boolean;
}

const INSTRUCTIONS = "knot-tools: tools from installed plugins and sandboxed user tools. Use tool_search to find tools by words, execute_tool to call one by name.";
const SEVERITY: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const LEVELS: Record<string, LoggingLevel> = { debug: "debug", info: "info", warn: "warning", error: "error" };

export function createMcpServer(core: ServerCore, options: ConnectionOptions): Server {
  const server = new Server(
    { name: "knot-tools", version: RUNTIME_VERSION },
    { capabilities: { tools: { listChanged: options.stateful }, logging: {} }, instructions: INSTRUCTIONS },
  );
  let minLevel: LoggingLevel = "debug";
  const guarded = <A extends unknown[], R>(what: string, handler: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof ProtocolError || error instanceof McpError) throw error;
      if (error instanceof KnotError) throw new ProtocolError(ErrorCode.InvalidRequest, error.message, { code: String(error.code) });
      core.logger.error(`mcp ${what} failed`, { error });
      throw new ProtocolError(ErrorCode.InternalError, "internal error", { code: "INTERNAL" });
    }
  };

  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minLevel = request.params.level;
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, guarded("tools/list", async (_request: unknown, rawExtra: unknown) => {
    const principal = await options.principalOf(rawExtra as RequestExtra);
    return { tools: (await core.resolver.list(principal)).map((tool) => toMcpTool(tool, core.runner)) };
  }));
  server.setRequestHandler(CallToolRequestSchema, guarded("tools/call", async (request: { params: { name: string; arguments?: unknown } }, rawExtra: unknown) => {
    const extra = rawExtra as RequestExtra;
    const principal = await options.principalOf(extra);
    const client = server.getClientVersion();
    const requestSignal = options.requestSignal?.(extra);
    const ctx: CallContext = {
      principal,
      signal: requestSignal ? AbortSignal.any([extra.signal, requestSignal]) : extra.signal,
      requestId: options.requestIdOf?.(extra) ?? randomUUID(),
      client: client ? `${client.name}/${client.version}` : null,
      emit: notifier(extra, request.params.name, () => minLevel),
      ask: options.stateful ? asker(server, extra) : null,
      depth: 0,
    };
    return core.callTool(ctx, request.params.name, request.params.arguments);
  }));
  return server;
}

/** Progress (only when the request carried a progress token) and log lines, on the request's own stream. */
function notifier(extra: RequestExtra, tool: string, minLevel: () => LoggingLevel): (event: RunEvent) => void {
  const progressToken = extra._meta?.progressToken;
  const send = (method: string, params: Record<string, unknown>) => void extra.sendNotification({ method, params }).catch(() => {});
  return (event) => {
    if (event.type === "progress") {
      if (progressToken === undefined) return;
      send("notifications/progress", {
        progressToken, progress: event.done,
        ...(event.total === undefined ? {} : { total: event.total }), ...(event.message === undefined ? {} : { message: event.message }),
      });
      return;
    }
    const level = LEVELS[event.level] ?? "info";
    if (SEVERITY.indexOf(level) < SEVERITY.indexOf(minLevel())) return;
    send("notifications/message", { level, logger: tool, data: event.message });
  };
}

/** Requests to the client in relation to the running call, refused when the client did not declare the capability. */
function asker(server: Server, extra: RequestExtra): CallContext["ask"] {
  return async (method, params) => {
    const capabilities = server.getClientCapabilities() ?? {};
    const supported = method === "sampling/createMessage" ? capabilities.sampling : capabilities.elicitation;
    if (!supported) throw new KnotError("BAD_REQUEST", `the MCP client does not support ${method === "sampling/createMessage" ? "sampling" : "elicitation"}`);
    return extra.sendRequest({ method, params }, (method === "sampling/createMessage" ? CreateMessageResultSchema : ElicitResultSchema) as never);
  };
}
