/**
 * One low-level SDK `Server`: per 2025 HTTP session, per 2026 request (or 2025 stateless request),
 * or per stdio connection. It answers `tools/list` and `tools/call` for whoever the current request
 * authenticated as, forwards a running tool's progress and log events as notifications (logs only
 * at or above the level the client asked for: `logging/setLevel` in 2025, `_meta` logLevel in 2026;
 * none when it asked for none), turns a tool's questions into an input-required result (the SDK
 * makes that real elicitation/sampling requests for 2025 clients), and lets nothing but a
 * deliberate protocol error leave a handler ("internal error" otherwise; the detail goes to the log).
 */
import { randomUUID } from "node:crypto";
import type { RunEvent } from "../../sandbox/protocol.ts";
import { KnotError } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import type { Logger } from "../log.ts";
import type { ToolRunner } from "../tools/tool-runner.ts";
import { RUNTIME_VERSION } from "../version.ts";
import type { CallToolFn } from "./call-tool.ts";
import { askedQuestions, isInputNeeded, MAX_STATE_CHARS, openRound, type InputRound } from "./input-rounds.ts";
import { toMcpTool } from "./listing.ts";
import { linkedSignal } from "./linked-signal.ts";
import { invalidParams, ProtocolError } from "./protocol-error.ts";
import type { StateCodec } from "./request-state.ts";
import type { ToolResolver } from "./resolver.ts";
import {
  ErrorCode, inputRequired, LOG_LEVEL_META_KEY, ResourceNotFoundError, SdkProtocolError, Server,
  type CallToolResult, type InputRequiredResult, type LoggingLevel, type ServerContext,
} from "./sdk.ts";
import type { CallContext } from "./tool-types.ts";

export interface ServerCore {
  readonly resolver: ToolResolver;
  readonly runner: ToolRunner;
  readonly callTool: CallToolFn;
  readonly logger: Logger;
  readonly state: StateCodec;
}

export interface ConnectionOptions {
  /** The caller of one request: HTTP answers the request's authenticated principal; stdio re-reads its user. */
  principalOf(ctx: ServerContext): Promise<Principal>;
  /** Aborted when the HTTP request carrying the call goes away. */
  requestSignal?(ctx: ServerContext): AbortSignal | undefined;
  /** The host's request id for logs and the audit log. */
  requestIdOf?(ctx: ServerContext): string | undefined;
  /** The original `arguments` of a call whose arguments were not an object (see set-aside.ts). */
  setAside?(ctx: ServerContext): unknown;
  /** Whether clients can be told the tool list changed (a 2025 session, stdio, or a 2026 subscription). */
  readonly listChanged: boolean;
}

const INSTRUCTIONS = "knot-tools: tools from installed plugins and sandboxed user tools. Use tool_search to find tools by words, execute_tool to call one by name.";
const SEVERITY: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const LEVELS: Record<string, LoggingLevel> = { debug: "debug", info: "info", warn: "warning", error: "error" };

export function createMcpServer(core: ServerCore, options: ConnectionOptions): Server {
  const server = new Server(
    { name: "knot-tools", version: RUNTIME_VERSION },
    {
      // Prompts and resources: none are offered; the empty lists carry 2026 caching hints like tools/list.
      capabilities: { tools: { listChanged: options.listChanged }, logging: {}, prompts: {}, resources: {} }, instructions: INSTRUCTIONS,
      // Runs before the handler on every round that echoes a state: a changed or expired one is refused.
      requestState: { verify: (state, ctx) => core.state.open(state, ctx) },
    },
  );
  let sessionLevel: LoggingLevel | null = null;
  const guarded = <A extends unknown[], R>(what: string, handler: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof ProtocolError) throw new SdkProtocolError(error.code, error.message, error.data);
      if (error instanceof SdkProtocolError) throw error;
      if (error instanceof KnotError) throw new SdkProtocolError(ErrorCode.InvalidRequest, error.message, { code: String(error.code) });
      core.logger.error(`mcp ${what} failed`, { error });
      throw new SdkProtocolError(ErrorCode.InternalError, "internal error", { code: "INTERNAL" });
    }
  };

  server.setRequestHandler("logging/setLevel", async (request) => {
    sessionLevel = request.params.level;
    return {};
  });
  // Every list is one page: no cursor is ever handed out, so any cursor a client sends is not ours.
  server.setRequestHandler("prompts/list", guarded("prompts/list", async (request: ListRequest) => onePage(request, { prompts: [] })));
  server.setRequestHandler("resources/list", guarded("resources/list", async (request: ListRequest) => onePage(request, { resources: [] })));
  server.setRequestHandler("resources/templates/list", guarded("resources/templates/list", async (request: ListRequest) => onePage(request, { resourceTemplates: [] })));
  // The capabilities say prompts and resources exist (their lists are empty): a name or URI asked for is unknown.
  server.setRequestHandler("prompts/get", guarded("prompts/get", async (request: { params: { name: string } }) => {
    throw invalidParams(`Invalid params: unknown prompt ${JSON.stringify(String(request.params.name).slice(0, 200))}: this server offers no prompts`, "NOT_FOUND", "params.name");
  }));
  server.setRequestHandler("resources/read", guarded("resources/read", async (request: { params: { uri: string } }) => {
    throw new ResourceNotFoundError(String(request.params.uri).slice(0, 500));
  }));
  server.setRequestHandler("tools/list", guarded("tools/list", async (request: ListRequest, ctx: ServerContext) => {
    onePage(request, null);
    const principal = await options.principalOf(ctx);
    return { tools: (await core.resolver.list(principal)).map((tool) => toMcpTool(tool, core.runner)) };
  }));
  server.setRequestHandler("tools/call", guarded("tools/call", async (request: { params: { name: string; arguments?: unknown } }, ctx: ServerContext): Promise<CallToolResult | InputRequiredResult> => {
    const principal = await options.principalOf(ctx);
    const name = request.params.name;
    const client = server.getClientVersion();
    const requestSignal = options.requestSignal?.(ctx);
    // `arguments` the transport set aside (not an object) reach call-tool, which answers INVALID_ARGUMENT.
    const args = options.setAside?.(ctx) ?? request.params.arguments;
    const roundTool = inputRoundTool(name, args);
    const input = openRound({
      user: principal.user.id, tool: roundTool, args, state: ctx.mcpReq.requestState(), responses: ctx.mcpReq.inputResponses, dropped: ctx.mcpReq.droppedInputResponseKeys,
      capabilities: server.getClientCapabilities(),
    });
    const envelopeLevel = ctx.mcpReq.envelope?.[LOG_LEVEL_META_KEY as never] as LoggingLevel | undefined;
    const modern = ctx.mcpReq.envelope !== undefined;
    const linked = requestSignal ? linkedSignal(ctx.mcpReq.signal, requestSignal) : null;
    const call: CallContext = {
      principal,
      signal: linked ? linked.signal : ctx.mcpReq.signal,
      requestId: options.requestIdOf?.(ctx) ?? randomUUID(),
      client: client ? `${client.name}/${client.version}` : null,
      emit: notifier(ctx, name, () => (modern ? envelopeLevel ?? null : sessionLevel)),
      input,
      depth: 0,
      modern,
    };
    try {
      return await core.callTool(call, name, args);
    } catch (error) {
      if (!isInputNeeded(error)) throw error;
      return askClient(core, principal.user.id, roundTool, input, error.requests);
    } finally {
      linked?.dispose();
    }
  }));
  return server;
}

type ListRequest = { params?: { cursor?: string } };

/** The list itself when the request names no cursor; a cursor is refused (-32602), as the spec asks of one the server did not issue. */
function onePage<T>(request: ListRequest, list: T): T {
  if (request.params?.cursor !== undefined) throw invalidParams("Invalid params: unknown cursor: this server lists everything in one page, so it never hands out a cursor", "INVALID_ARGUMENT", "params.cursor");
  return list;
}

/**
 * What an input round's state is bound to: the tool that asks. Through `execute_tool` that is the
 * tool it runs, or a state asked for one tool could answer another's questions.
 */
function inputRoundTool(name: string, args: unknown): string {
  if (name !== "execute_tool" || typeof args !== "object" || args === null) return name;
  const inner = (args as { name?: unknown }).name;
  return typeof inner === "string" ? `execute_tool/${inner}` : name;
}

/** The input-required result: what to ask, and the sealed answers so far. */
async function askClient(core: ServerCore, user: string, tool: string, input: InputRound, requests: Readonly<Record<string, { method: string; params: Record<string, unknown> }>>): Promise<InputRequiredResult> {
  const requestState = await core.state.seal({ user, tool, args: input.args, answers: { ...input.answers }, pending: askedQuestions(requests) });
  // The client must send the state back in a request body: one too large for that could never be answered.
  if (requestState.length > MAX_STATE_CHARS) {
    throw new KnotError("TOOL_ERROR", `the tool's questions and the answers so far come to ${requestState.length} characters of state, over the ${MAX_STATE_CHARS} a client can send back: ask fewer or smaller questions`);
  }
  return inputRequired({ inputRequests: requests as never, requestState });
}

/** Progress (only when the request carried a progress token) and log lines at or above the asked level, on the request's own stream. */
function notifier(ctx: ServerContext, tool: string, minLevel: () => LoggingLevel | null): (event: RunEvent) => void {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const send = (method: string, params: Record<string, unknown>) => void ctx.mcpReq.notify({ method, params } as never).catch(() => {});
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
    const threshold = minLevel();
    if (threshold === null || SEVERITY.indexOf(level) < SEVERITY.indexOf(threshold)) return;
    send("notifications/message", { level, logger: tool, data: event.message });
  };
}
