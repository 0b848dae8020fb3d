/**
 * The composition root: store, plugin pool, sandbox, credentials, audit and the HTTP server,
 * wired once. Surfaces get `Services`; nothing else constructs these parts.
 */
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { createSandboxPool, type SandboxPool } from "../sandbox/index.ts";
import { createAuditLog } from "./audit/audit-log.ts";
import { startAuditRetention } from "./audit/audit-retention.ts";
import { bearerFrom, createAuthenticator, isLoopbackAddress } from "./auth/authenticate.ts";
import { createLoopbackTokens } from "./auth/loopback-tokens.ts";
import type { ServerConfig } from "./config.ts";
import { auditRoutes } from "./http/routes/audit-routes.ts";
import { coreRoutes } from "./http/routes/core-routes.ts";
import { navigationRoutes } from "./http/routes/navigation-routes.ts";
import { pluginRoutes } from "./http/routes/plugin-routes.ts";
import { toolRoutes } from "./http/routes/tool-routes.ts";
import { visibilityRoutes } from "./http/routes/visibility-routes.ts";
import { mcpRoutes } from "./http/routes/mcp-route.ts";
import { createRouter, type Route } from "./http/router.ts";
import { createHttpServer } from "./http/server.ts";
import { createDrain } from "./lifecycle/drain.ts";
import { createPendingWork } from "./lifecycle/pending-work.ts";
import { shutdownGracefully } from "./lifecycle/shutdown.ts";
import { createEventBus } from "./events/event-bus.ts";
import { createHub } from "./events/hub.ts";
import { toolEvent } from "./events/product-events.ts";
import { deliveryAudience } from "./events/event-types.ts";
import { bindPluginEvents } from "./events/knot-events.ts";
import { withRunEvents } from "./events/run-events.ts";
import { INERT_DISPATCHER, startSinkDispatcher, type SinkDispatcher } from "./events/sink-dispatcher.ts";
import { sinkRoutes } from "./events/sink-routes.ts";
import { createLogger, type Logger } from "./log.ts";
import { createMetrics, type Metrics } from "./metrics/metrics.ts";
import { metricsRoutes } from "./metrics/metrics-route.ts";
import { handlerCallObserver, logWorkerExits, observeAudit, observeAuth, observeSandbox } from "./metrics/observers.ts";
import { createMcpSurface, type McpSurface } from "./mcp/surface.ts";
import { usersAffectedBy } from "./tools/tool-visibility.ts";
import { loadPlugins } from "./plugins/loader.ts";
import { createPluginPool } from "./plugins/plugin-pool.ts";
import { consentRoutes } from "./oauth/consent-routes.ts";
import { createOAuthService } from "./oauth/oauth-service.ts";
import type { Services } from "./services.ts";
import { openStore } from "./store/index.ts";
import { currentRequestScope } from "./http/request-scope.ts";
import { createQuotas } from "./tools/quotas.ts";
import { createToolRunner } from "./tools/tool-runner.ts";
import { createUserToolsCatalog } from "./tools/user-tools.ts";
import { startRetention } from "./retention.ts";
import { RUNTIME_VERSION } from "./version.ts";
import { webRoutes } from "./web/web-routes.ts";

export interface App extends Services {
  readonly server: http.Server;
  readonly sandbox: SandboxPool;
  readonly mcp: McpSurface;
  readonly metrics: Metrics;
  /** Delivers the event sinks' outbox. */
  readonly sinks: SinkDispatcher;
  /** Starts listening; resolves with the bound address (port 0 picks a free one). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Graceful: refuses new work, lets running calls finish (config.shutdownGraceMs), closes the store last. */
  close(): Promise<void>;
}

/** What parts built early announce to parts built later (the MCP surface listens). */
interface AppSignals {
  /** These users' visible tools may have changed (all users when undefined). */
  toolsChanged: readonly string[] | undefined;
  /** A token (an OAuth connection) was revoked: its MCP sessions end. */
  tokenRevoked: string;
}

export interface AppOptions {
  readonly logger?: Logger;
  /**
   * Whether this process delivers the sinks' outbox (default true). A one-shot command (`run`)
   * must not: it would claim other users' deliveries and then wait for them before it exits.
   */
  readonly deliverSinks?: boolean;
}

export async function createApp(config: ServerConfig, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const metrics = createMetrics();
  const runs = createPendingWork();
  const auditWrites = createPendingWork();
  const store = await openStore({ path: config.database, durability: config.durability, markScope: currentRequestScope });
  const registry = await loadPlugins({ root: config.pluginsDir, runtimeVersion: RUNTIME_VERSION, pluginConfig: config.plugins, logger });
  for (const warning of registry.warnings) logger.warn(warning);
  for (const failure of registry.failed) logger.warn("plugin failed to load", { plugin: failure.name, reason: failure.reason });
  const pool = createPluginPool(registry, { deadlineMs: config.handlerTimeoutMs, logger, onCall: handlerCallObserver(metrics, logger) });
  const loopbackTokens = createLoopbackTokens();
  const signals = createHub<AppSignals>();
  const oauth = createOAuthService({
    store, config, logger,
    // The row names the connection even when the event is its revocation (principalForToken would
    // answer null for a revoked token, and the row would lose who and which connection).
    onEvent: ({ tool, connection, outcome }) => void auth.principalFor(connection.userId, "token")
      .then((user) => user && { ...user, scopes: connection.scopes, tokenId: connection.id, ...(connection.connection ? { clientName: connection.connection.clientName } : {}) })
      .then((principal) => audit.record({ principal, surface: "http", tool, args: { clientId: connection.connection?.clientId ?? null, connectionId: connection.id }, outcome, durationMs: 0 })),
    closeSessions: (tokenId) => signals.emit("tokenRevoked", tokenId),
  });
  const auth = observeAuth(createAuthenticator(store, loopbackTokens, oauth), metrics);
  const audit = observeAudit(await createAuditLog({ store, maskKey: config.audit.maskKey, logger, events: { fallback: () => metrics.auditFallback(), lost: () => metrics.auditLost() } }), metrics, auditWrites);
  const stopWorkerExitLog = logWorkerExits(logger);
  const sandbox = createSandboxPool({
    workers: config.sandbox.workers, runsPerWorker: config.sandbox.runsPerWorker, workerMemoryMb: config.sandbox.workerMemoryMb,
    ...(config.sandbox.recycleAfterRuns === undefined ? {} : { recycleAfterRuns: config.sandbox.recycleAfterRuns }),
    ...(config.sandbox.userRunsInFlight === undefined ? {} : { userRunsInFlight: config.sandbox.userRunsInFlight }),
    ...(config.sandbox.isolateReuse === undefined ? {} : { isolateReuse: config.sandbox.isolateReuse }),
    ...(config.sandbox.idleIsolates === undefined ? {} : { isolateMaxIdle: config.sandbox.idleIsolates }),
  });
  const events = createEventBus(store, logger);
  bindPluginEvents(pool, registry, events);
  const catalog = createUserToolsCatalog(store, registry, {
    maxToolsPerUser: config.quotas.userTools,
    onChange: (tool, previous) => signals.emit("toolsChanged", usersAffectedBy(tool, previous)),
    onEvent: (type, tool, by) => events.emitCommitted(toolEvent(type, tool, by.user.name, by)),
  });
  let baseUrl: string | null = null;
  const quotas = createQuotas(config.quotas);
  const runner = withRunEvents(createToolRunner({
    sandbox: observeSandbox(sandbox, { metrics, logger, runs }), catalog, registry, loopbackTokens, limits: config.limits, loopbackBase: () => baseUrl, tokenTtlMs: config.loopbackTokenTtlMs, quotas,
    refreshPrincipal: (principal) => auth.refresh(principal),
  }), () => events);
  const services: Services = { config, store, pool, auth, loopbackTokens, audit, catalog, runner, logger, runtimeVersion: RUNTIME_VERSION, events, oauth,
    toolsChanged: (userIds) => signals.emit("toolsChanged", userIds) };

  const mcp = createMcpSurface(services);
  signals.on("toolsChanged", (userIds) => mcp.notifyToolsChanged(userIds));
  signals.on("tokenRevoked", (tokenId) => mcp.sessions.closeOfToken(tokenId));
  const sinks = options.deliverSinks === false ? INERT_DISPATCHER
    : startSinkDispatcher({
      store, auth, runner, audit, logger, settings: config.sinks, leaseMs: config.limits.wallMs + 30_000,
      audienceOf: (type, ownerId) => deliveryAudience(registry, type, ownerId),
    });
  events.onStored(() => sinks.wake());
  await mcp.startChangeBus();
  const retention = startAuditRetention(store, config.audit.retentionDays, logger);
  const outboxRetention = startRetention({ what: "sink outbox rows", retentionDays: config.sinks.retentionDays, prune: (olderThan) => store.pruneOutbox(olderThan), logger });
  const routes: Route[] = [...visibilityRoutes(services, mcp), ...auditRoutes(services), ...coreRoutes(services), ...navigationRoutes(services), ...pluginRoutes(services), ...toolRoutes(services), ...webRoutes(services), ...sinkRoutes(services), ...consentRoutes(services, oauth), ...metricsRoutes(metrics),
    ...mcpRoutes({ edge: mcp.http, challenge: oauth.challenge })];
  const drain = createDrain({
    // While draining, a running tool's loopback calls still reach their handlers so the run can finish.
    exempt: (req) => isLoopbackAddress(req.socket.remoteAddress) && loopbackTokens.lookup(bearerFrom(req.headers.authorization) ?? "") !== null,
  });
  const server = createHttpServer({ router: createRouter(routes), auth, logger, maxBodyBytes: config.maxBodyBytes, fallback: oauth.handleHttp, drain, limits: config.http, publicOrigin: config.oauth.publicUrl });
  metrics.watch({ sandbox: () => sandbox.stats(), quotas: () => quotas.stats(), httpInFlight: () => drain.inFlight, mcpSessions: () => mcp.sessions.size });
  let closing: Promise<void> | null = null;

  return {
    ...services,
    server,
    sandbox,
    mcp,
    metrics,
    sinks,
    listen: () => new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => {
        const { port } = server.address() as AddressInfo;
        // The loopback always targets this process on the loopback interface, whatever host is public.
        baseUrl = `http://127.0.0.1:${port}`;
        const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
        oauth.setOrigin(url);
        resolve({ host: config.host, port, url });
      });
    }),
    close: () => closing ??= shutdownGracefully({
      graceMs: config.shutdownGraceMs, logger, drain, server, runs, auditWrites,
      stopTimers: () => {
        retention.stop();
        outboxRetention.stop();
        return sinks.stop();
      },
      closeMcp: () => mcp.close(),
      closeSandbox: async () => { await Promise.all([sandbox.close().finally(stopWorkerExitLog), registry.close()]); },
      closeStore: () => store.close(),
    }),
  };
}
