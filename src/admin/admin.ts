/**
 * Why: users, groups, grants, tokens and the tools an admin stores for someone decide what everyone
 * may do and see. The web admin routes and the CLI each applied these rules their own way (and the
 * CLI never told connected MCP clients that their tools changed). This is the one implementation
 * both call: names are checked with the shared grammars (sandbox/guest/names.ts), the store is
 * changed, the product event is emitted and tool-list changes are announced, whoever asked.
 * Who may ask is the caller's business: the router's admin flag on the web, the local account
 * running the CLI.
 */
import type { AuditLog } from "../audit/audit-log.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { Principal } from "../identity/principal.ts";
import type { Services } from "../services.ts";
import type { Store, TokenRecord } from "../store/store.ts";
import { createGrantAdmin, type GrantAdmin } from "./grants.ts";
import { createTokenAdmin, type TokenAdmin } from "./tokens.ts";
import { createToolAdmin, type ToolAdmin } from "./tools.ts";
import { createUserAdmin, type UserAdmin } from "./users.ts";

export interface AdminDeps {
  readonly store: Store;
  /** Product events (grant.changed, tool.saved) go to the store's outbox; a server delivers them. */
  readonly events: EventBus;
  /** Tells MCP clients whose visible tools may have changed (all when omitted): here and on every instance the change bus reaches. */
  readonly toolsChanged: (userIds?: readonly string[]) => void;
  /** After a token is revoked: its OAuth grant goes with it, and its open MCP sessions close where there are any. */
  readonly tokenRevoked: (token: TokenRecord) => Promise<void>;
  /** Where admin actions that must be audited (revoking an OAuth connection) are recorded, whichever surface asked. */
  readonly audit: Pick<AuditLog, "record">;
}

/** Who asked for an admin action, for its audit row: a request's principal, or the local CLI (none). */
export interface AdminActor {
  readonly principal: Principal | null;
  readonly surface: "http" | "cli";
  readonly requestId: string | null;
}

export interface Admin {
  readonly users: UserAdmin;
  readonly grants: GrantAdmin;
  readonly tokens: TokenAdmin;
  readonly tools: ToolAdmin;
}

export function createAdmin(deps: AdminDeps): Admin {
  return { users: createUserAdmin(deps), grants: createGrantAdmin(deps), tokens: createTokenAdmin(deps), tools: createToolAdmin(deps) };
}

/** The admin layer of a running server (stateless: cheap to build per route table). */
export function adminOf(services: Services): Admin {
  return createAdmin({ store: services.store, events: services.events, toolsChanged: services.toolsChanged, tokenRevoked: (token) => services.oauth.tokenRevoked(token), audit: services.audit });
}
