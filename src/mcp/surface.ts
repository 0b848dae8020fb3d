/**
 * The MCP surface, assembled once by the app: the resolver, the call path, the `/mcp` HTTP handler
 * (2026-07-28 stateless requests; 2025-11-25 sessions or stateless) and stdio connections (either
 * revision, chosen by the client's first message), plus `notifyToolsChanged` for the places
 * that change what a user may see (user tools saved or deleted, grants changed).
 */
import type { Readable, Writable } from "node:stream";
import { KnotError } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import type { Services } from "../services.ts";
import { createBootTools, type BootToolHost } from "./boot-tools.ts";
import { createCallTool } from "./call-tool.ts";
import { createChangeBus, type ChangeBus } from "./change-bus.ts";
import { createCors } from "./cors.ts";
import { createHostCheck } from "./host-check.ts";
import { createMcpHttpEdge, type McpHttpEdge, type RequestAuth } from "./http-handler.ts";
import { toMcpTool } from "./listing.ts";
import { createParamHeaderCheck } from "./param-header-check.ts";
import { createMcpServer, type ConnectionOptions, type ServerCore } from "./mcp-server.ts";
import { watchToolList } from "./list-watch.ts";
import { createToolResolver, type ToolResolver } from "./resolver.ts";
import { ProtocolError } from "./protocol-error.ts";
import { createModernHandlers } from "./modern-handlers.ts";
import { createStateCodec } from "./request-state.ts";
import { ErrorCode, type Server, type ServerContext } from "./sdk.ts";
import type { SetAside } from "./set-aside.ts";
import { serveStdioAs } from "./stdio.ts";
import { createSessionRegistry, type SessionRegistry } from "./sessions.ts";
import { mcpRefusal } from "./tool-gates.ts";

export interface McpSurface {
  readonly resolver: ToolResolver;
  readonly sessions: SessionRegistry;
  /** What the HTTP server's `/mcp` route calls (src/http/routes/mcp-route.ts). */
  readonly http: McpHttpEdge;
  /** Serves one MCP client over stdio (default: this process's stdin/stdout) acting as the user. */
  connectStdio(userId: string, streams?: { input: Readable; output: Writable }): Promise<{ readonly closed: Promise<void>; close(): Promise<void>; drain(graceMs: number): void }>;
  /** Sends `notifications/tools/list_changed` to the open connections of these users (all when omitted), on every instance. */
  notifyToolsChanged(userIds?: readonly string[]): void;
  /** Joins the other instances on the same PostgreSQL database (LISTEN/NOTIFY); nothing on SQLite. */
  startChangeBus(): Promise<void>;
  close(): Promise<void>;
}

export function createMcpSurface(services: Services): McpSurface {
  const { auth, audit, catalog, runner, pool, logger, config } = services;
  let host: BootToolHost | null = null;
  const boot = createBootTools(catalog, () => host!);
  const changeMark = services.store.changeMark?.bind(services.store);
  const resolver = createToolResolver({ boot, catalog, registry: pool.registry, ...(changeMark ? { changeMark } : {}) });
  const callTool = createCallTool({ resolver, pool, runner, audit, logger, deadlineMs: config.handlerTimeoutMs });
  host = {
    listed: async (principal) => (await resolver.list(principal)).map((tool) => {
      const shown = toMcpTool(tool, runner);
      return { name: shown.name, description: shown.description ?? "", inputSchema: shown.inputSchema, kind: tool.kind };
    }),
    call: callTool,
  };
  const core: ServerCore = { resolver, runner, callTool, logger, state: createStateCodec(services.store) };
  const sessions = createSessionRegistry();
  /** Open stdio connections; `tell` notifies one that its user's tool list may have changed. */
  const stdio = new Set<{ userId: string; server: () => Server | null; tell: () => void }>();

  const fromRequest = (ctx: ServerContext): RequestAuth => {
    const info = ctx.http?.authInfo?.extra as RequestAuth | undefined;
    if (!info?.principal) throw new ProtocolError(ErrorCode.InvalidRequest, "unauthenticated", { code: "UNAUTHENTICATED" });
    return info;
  };
  const httpOptions = (listChanged: boolean): ConnectionOptions => ({
    listChanged,
    principalOf: async (ctx) => fromRequest(ctx).principal,
    requestSignal: (ctx) => fromRequest(ctx).closed,
    requestIdOf: (ctx) => fromRequest(ctx).requestId,
    setAside: (ctx) => fromRequest(ctx).setAside.get(ctx.mcpReq.id),
  });
  const modern = createModernHandlers(() => createMcpServer(core, httpOptions(true)), config.maxBodyBytes, logger);

  const http = createMcpHttpEdge({
    audit, sessions, stateless: config.mcp.stateless,
    hostCheck: createHostCheck(config.mcp.allowedHosts, config.mcp.corsOrigins), cors: createCors(config.mcp.corsOrigins ?? []),
    newServer: (stateful) => createMcpServer(core, httpOptions(stateful)),
    modernFor: (userId) => modern.of(userId),
    paramHeaders: createParamHeaderCheck(pool.registry, resolver),
  });

  let bus: ChangeBus | null = null;
  const deliverLocally = (userIds?: readonly string[]) => {
    const wanted = userIds ? new Set(userIds) : null;
    for (const { server } of sessions.of(userIds)) void server.sendToolListChanged().catch(() => {});
    for (const connection of stdio) if (!wanted || wanted.has(connection.userId)) connection.tell();
    modern.notify(userIds);
  };

  const stdioPrincipal = async (userId: string): Promise<Principal> => {
    const principal = await auth.principalFor(userId, "cli");
    if (!principal) throw new KnotError("NOT_FOUND", "the user of this connection no longer exists");
    const refused = mcpRefusal(principal);
    if (refused) throw new KnotError("PERMISSION_DENIED", `permission denied: ${refused.detail}`);
    return principal;
  };

  /** What a stdio client of this user would list now ("refused" once it may not use MCP). */
  const listFingerprint = async (userId: string): Promise<string> => {
    const principal = await stdioPrincipal(userId).catch(() => null);
    if (!principal) return "refused";
    return JSON.stringify((await resolver.list(principal)).map((tool) => toMcpTool(tool, runner)));
  };

  return {
    resolver, sessions, http,
    async connectStdio(userId, streams) {
      await stdioPrincipal(userId);
      const setAside: SetAside = new Map();
      const connection = serveStdioAs((setAsideInto) => createMcpServer(core, {
        listChanged: true, principalOf: () => stdioPrincipal(userId),
        setAside: (ctx) => {
          const args = setAsideInto.get(ctx.mcpReq.id);
          setAsideInto.delete(ctx.mcpReq.id);
          return args;
        },
      }), streams, logger, setAside);
      const sendListChanged = () => void connection.server()?.sendToolListChanged().catch(() => {});
      const entry = { userId, server: connection.server, tell: sendListChanged };
      stdio.add(entry);
      // Changes made by other processes on the same SQLite file (PostgreSQL has the change bus).
      // Once it watches, a change made here goes through the watch too, so it is told once.
      const watch = changeMark ? await watchToolList({ changeMark, logger, fingerprint: () => listFingerprint(userId), changed: sendListChanged }) : null;
      if (watch) entry.tell = () => void watch.check();
      void connection.closed.then(() => {
        watch?.stop();
        stdio.delete(entry);
      });
      return connection;
    },
    notifyToolsChanged(userIds) {
      deliverLocally(userIds);
      bus?.publish(userIds);
    },
    async startChangeBus() {
      bus = await createChangeBus(config.database, deliverLocally, logger);
    },
    async close() {
      await bus?.close();
      await sessions.closeAll();
      await modern.close();
      await Promise.allSettled([...stdio].map((c) => c.server()?.close()));
    },
  };
}
