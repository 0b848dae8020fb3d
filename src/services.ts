import type { AuditLog } from "./audit/audit-log.ts";
import type { Authenticator } from "./auth/authenticate.ts";
import type { LoopbackTokens } from "./auth/loopback-tokens.ts";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./log.ts";
import type { OAuthService } from "./oauth/oauth-service.ts";
import type { PluginPool } from "./plugins/plugin-pool.ts";
import type { EventBus } from "./events/event-bus.ts";
import type { Store } from "./store/store.ts";
import type { ToolRunner } from "./tools/tool-runner.ts";
import type { UserToolsCatalog } from "./tools/user-tools.ts";

/** What the composition root hands to surfaces (HTTP routes, MCP, CLI). */
export interface Services {
  readonly config: ServerConfig;
  readonly store: Store;
  readonly pool: PluginPool;
  readonly auth: Authenticator;
  readonly loopbackTokens: LoopbackTokens;
  readonly audit: AuditLog;
  readonly catalog: UserToolsCatalog;
  readonly runner: ToolRunner;
  readonly logger: Logger;
  readonly runtimeVersion: string;
  /** Event sinks' outbox: emit product events (tool.saved, grant.changed, …). */
  readonly events: EventBus;
  /** The OAuth authorization server and connections (hosted assistants). */
  readonly oauth: OAuthService;
  /** Tell connected MCP clients whose visible tools may have changed (grants, memberships); all when omitted. */
  toolsChanged(userIds?: readonly string[]): void;
}
