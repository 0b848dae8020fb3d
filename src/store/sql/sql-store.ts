/** Puts the shared parts of the store together on a backend's SqlClient, with what stays per backend (the audit append, closing). */
import type { Store } from "../store.ts";
import { createAuditQueries } from "./audit-queries.ts";
import { createBootstrapMethods } from "./bootstrap.ts";
import type { StoreContext } from "./context.ts";
import { createEventMethods } from "./events.ts";
import { createGrantMethods } from "./grants.ts";
import { createOAuthMethods } from "./oauth.ts";
import { createSettingMethods } from "./settings.ts";
import type { SqlQueryable } from "./sql-client.ts";
import { createTokenMethods } from "./tokens.ts";
import { createUserToolMethods } from "./user-tools.ts";
import { createUserMethods } from "./users.ts";

interface BackendParts {
  readonly appendAudit: Store["appendAudit"];
  readonly appendAuditBatch: Store["appendAuditBatch"];
  readonly prepareAudit?: Store["prepareAudit"];
  readonly enqueueAudit?: Store["enqueueAudit"];
  readonly changeMark?: Store["changeMark"];
  /** Takes, inside `tx`, the lock the backend's audit appends take (see audit-queries.ts). */
  lockAuditChain(tx: SqlQueryable): Promise<void>;
  close(): Promise<void>;
}

export function createSqlStore(context: StoreContext, { lockAuditChain, ...parts }: BackendParts): Store {
  return Object.freeze({
    ...createUserMethods(context),
    ...createBootstrapMethods(context),
    ...createGrantMethods(context),
    ...createTokenMethods(context),
    ...createUserToolMethods(context),
    ...createAuditQueries(context, lockAuditChain),
    ...createEventMethods(context),
    ...createSettingMethods(context),
    ...createOAuthMethods(context),
    ...parts,
  });
}
