/**
 * The admin layer (src/admin) as a CLI command uses it: on the configured database, with product
 * events into the store's outbox (a server delivers them) and tool-list changes published on the
 * change bus, so MCP clients of servers on the same database hear of a CLI grant as of a web one.
 */
import { createAdmin, type Admin } from "../admin/admin.ts";
import { createAuditLog } from "../audit/audit-log.ts";
import type { ServerConfig } from "../config.ts";
import { createEventBus } from "../events/event-bus.ts";
import { silentLogger } from "../log.ts";
import { createChangeBus } from "../mcp/change-bus.ts";
import { openStore } from "../store/index.ts";
import type { Store } from "../store/store.ts";
import { refuseForeignDatabase, requireExistingDatabase, resolveConfig } from "./context.ts";

export interface CliAdmin {
  readonly admin: Admin;
  readonly store: Store;
  readonly config: ServerConfig;
  /** Waits for published changes, then closes the store. */
  close(): Promise<void>;
}

async function openAdmin(values: Parameters<typeof resolveConfig>[0], createDatabase: boolean): Promise<CliAdmin> {
  const config = resolveConfig(values);
  if (createDatabase) refuseForeignDatabase(config.database);
  else requireExistingDatabase(config.database);
  const store = await openStore({ path: config.database });
  const bus = await createChangeBus(config.database, () => {}, silentLogger).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  // The admin layer audits what it must (an OAuth connection revoked) into the same log the server keeps.
  const audit = await createAuditLog({ store, maskKey: config.audit.maskKey, logger: silentLogger }).catch(async (error: unknown) => {
    await bus.close();
    await store.close();
    throw error;
  });
  const admin = createAdmin({
    store, events: createEventBus(store, silentLogger), toolsChanged: (userIds) => bus.publish(userIds),
    // No MCP session lives in this process: revoking the connection's OAuth grant is all there is to do here.
    tokenRevoked: async (token) => {
      if (token.connection) await store.revokeOAuthGrant(token.connection.grantId);
    },
    audit,
  });
  return {
    admin, store, config,
    async close() {
      try {
        await bus.close();
      } finally {
        await store.close();
      }
    },
  };
}

/** Runs `work` with the admin layer open, and closes it whatever happens; the database must exist unless `createDatabase`. */
export async function withAdmin<T>(values: Parameters<typeof resolveConfig>[0], work: (cli: CliAdmin) => Promise<T>, createDatabase = false): Promise<T> {
  const opened = await openAdmin(values, createDatabase);
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}
