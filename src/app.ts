/**
 * The composition root: store, plugin pool, credentials and the HTTP server, wired once.
 * Surfaces get `Services`; nothing else constructs these parts.
 */
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { createAuthenticator } from "./auth/authenticate.ts";
import { createLoopbackTokens } from "./auth/loopback-tokens.ts";
import type { ServerConfig } from "./config.ts";
import { coreRoutes } from "./http/routes/core-routes.ts";
import { pluginRoutes } from "./http/routes/plugin-routes.ts";
import { createRouter, type Route } from "./http/router.ts";
import { createHttpServer } from "./http/server.ts";
import { createLogger, type Logger } from "./log.ts";
import { loadPlugins } from "./plugins/loader.ts";
import { createPluginPool } from "./plugins/plugin-pool.ts";
import type { Services } from "./services.ts";
import { openStore } from "./store/index.ts";
import { RUNTIME_VERSION } from "./version.ts";

export interface App extends Services {
  readonly server: http.Server;
  /** Starts listening; resolves with the bound address (port 0 picks a free one). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  close(): Promise<void>;
}

export interface AppOptions {
  readonly logger?: Logger;
}

export async function createApp(config: ServerConfig, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger();
  const store = await openStore({ path: config.database });
  const registry = await loadPlugins({ root: config.pluginsDir, runtimeVersion: RUNTIME_VERSION, pluginConfig: config.plugins });
  for (const warning of registry.warnings) logger.warn(warning);
  for (const failure of registry.failed) logger.warn("plugin failed to load", { plugin: failure.name, reason: failure.reason });
  const pool = createPluginPool(registry, { deadlineMs: config.handlerTimeoutMs, logger });
  const loopbackTokens = createLoopbackTokens();
  const auth = createAuthenticator(store, loopbackTokens);
  const services: Services = { config, store, pool, auth, loopbackTokens, logger, runtimeVersion: RUNTIME_VERSION };

  const routes: Route[] = [...coreRoutes(services), ...pluginRoutes(services)];
  const server = createHttpServer({ router: createRouter(routes), auth, logger, maxBodyBytes: config.maxBodyBytes });

  return {
    ...services,
    server,
    listen: () => new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => {
        const { port } = server.address() as AddressInfo;
        resolve({ host: config.host, port, url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}` });
      });
    }),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}
