/**
 * The one storage interface. SQLite (node:sqlite) implements it for a single instance; a
 * PostgreSQL implementation can serve several stateless instances later. Methods are async so
 * that a network database fits the same shape.
 */

export interface UserRecord {
  readonly id: string;
  readonly name: string;
  readonly isAdmin: boolean;
  readonly createdAt: string;
}

export interface GroupRecord {
  readonly name: string;
  readonly members: readonly string[]; // user ids
}

/** A grant of a permission id to a user (`user:<id>`) or a group (`group:<name>`). */
export interface GrantRecord {
  readonly subject: { readonly kind: "user"; readonly userId: string } | { readonly kind: "group"; readonly group: string };
  readonly permission: string;
}

export interface TokenScopes {
  /** Permission ids or globs such as `plugin.metrics.*`. */
  readonly permissions: readonly string[];
  /** Whether the token may call tools that change things (write / destructive). */
  readonly write: boolean;
}

export interface TokenRecord {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  /** null = unscoped: the user's full authority. */
  readonly scopes: TokenScopes | null;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly lastUsedAt: string | null;
  /** The token this one was derived from (a web session opened with it); revoking that revokes this. */
  readonly parentId: string | null;
  /** Set when the token is an OAuth connection: the client it was lent to and its grant. */
  readonly connection: ConnectionBinding | null;
}

/** What binds a connection (a token approved on the consent page) to an OAuth client. */
export interface ConnectionBinding {
  readonly clientId: string;
  readonly clientName: string;
  /** oidc-provider's grant id: its access and refresh tokens carry it. */
  readonly grantId: string;
}

/** One stored oidc-provider model instance (see src/oauth/store-adapter.ts). */
export interface OAuthModelRow {
  readonly model: string;
  readonly id: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly grantId: string | null;
  readonly uid: string | null;
  /** ISO time after which the row is gone for readers; null = no expiry. */
  readonly expiresAt: string | null;
}

/** A `sink` is a user script run (as its owner) for the events it subscribes to. */
export type ToolKind = "tool" | "lib" | "sink";
/** `private`, `everyone`, or a group name prefixed with `@`. */
export type Sharing = "private" | "everyone" | `@${string}`;

export interface UserToolParameter {
  readonly name: string;
  readonly type: "string" | "int" | "float" | "bool" | "list" | "object";
  readonly description?: string;
  readonly required?: boolean;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly secret?: boolean;
  readonly personal?: boolean;
  /** `object`: its members, each a parameter (the plugin parameter model). */
  readonly properties?: readonly UserToolParameter[];
  /** `list`: what each element is. */
  readonly items?: Omit<UserToolParameter, "name" | "required" | "default">;
}

/**
 * What one `lib:<name>` import of a saved tool or lib means: the lib (by id, so a rename or a
 * look-alike never swaps code in) and the version its author pinned when saving.
 */
export interface LibPin {
  /** The name as the code writes it after `lib:` (bare, or owner-qualified `alice__fmt`). */
  readonly name: string;
  readonly libId: string;
  readonly version: number;
}

export interface UserToolInput {
  readonly name: string;
  readonly kind: ToolKind;
  readonly description: string;
  readonly language: "js" | "ts";
  readonly parameters: readonly UserToolParameter[];
  readonly code: string;
  readonly sharing: Sharing;
  readonly active: boolean;
  readonly readOnly?: boolean;
  readonly destructive?: boolean;
  /** A sink's subscribed event types (kind `sink` only). */
  readonly events?: readonly string[];
  /** Set by the catalog when saving (never taken from a request); absent = none. */
  readonly libPins?: readonly LibPin[];
}

export interface UserToolRecord extends UserToolInput {
  readonly id: string;
  readonly ownerId: string;
  /** The owner's user name: shared tools are listed and called as `<ownerName>__<name>`. */
  readonly ownerName: string;
  readonly libPins: readonly LibPin[];
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * A tool as listed: everything but its code. A listing holds every tool shared with the caller
 * (hundreds, each up to 256 KB of code); a run loads the code of the one tool it runs
 * (UserToolsCatalog.withCode, by id and version from the immutable history).
 */
export type UserToolSummary = Omit<UserToolRecord, "code">;

export interface UserToolVersion {
  readonly toolId: string;
  readonly version: number;
  readonly savedAt: string;
  readonly savedBy: string;
  readonly tool: UserToolInput;
}

export interface StoredEvent {
  readonly id: string;
  readonly type: string;
  readonly at: string;
  readonly data: unknown;
  /** The sinks whose runs led to this event, first to last (absent: no sink did). Never shown to a sink. */
  readonly causedBy?: readonly string[];
}

export type DeliveryStatus = "pending" | "delivered" | "failed" | "dead";

export interface DeliveryRecord {
  readonly id: number;
  readonly sinkId: string;
  readonly eventId: string;
  readonly type: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly nextAttemptAt: string;
}

export interface ClaimedDelivery extends DeliveryRecord {
  readonly event: StoredEvent;
  /** The lease this claim holds: a settlement naming it counts only while it is still the row's. */
  readonly leaseUntil: string;
}

export type DeliverySettlement =
  | { readonly status: "delivered" }
  | { readonly status: "failed" | "dead"; readonly error: string; readonly nextAttemptAt: string }
  /** Not run, for a reason of the host's (quota, shutdown): retried later without using an attempt. */
  | { readonly status: "deferred"; readonly error: string; readonly nextAttemptAt: string };

export interface AuditEntryInput {
  readonly at: string;
  readonly userId: string | null;
  readonly tokenId: string | null;
  readonly client: string | null;
  readonly surface: "mcp" | "api" | "http" | "loopback" | "cli";
  readonly tool: string;
  /** Arguments with secret/personal values already masked. */
  readonly args: unknown;
  readonly outcome: string; // "ok" or an error code
  readonly durationMs: number;
  readonly summary: string | null;
  /** The server's own id of the request. */
  readonly requestId: string | null;
  /** The `x-request-id` the client sent, if any (hashed only when present, so older rows keep their hashes). */
  readonly clientRequestId?: string | null;
}

export interface AuditEntry extends AuditEntryInput {
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
}

export interface AuditAnchor {
  readonly seq: number;
  readonly hash: string;
}

export interface AuditQuery {
  readonly userId?: string;
  readonly tool?: string;
  readonly outcome?: string;
  readonly since?: string;
  readonly until?: string;
  /** Return rows with seq < before (for paging newest-first). */
  readonly before?: number;
  readonly limit?: number;
}

export interface Store {
  // users and groups
  createUser(input: { name: string; isAdmin: boolean }): Promise<UserRecord>;
  getUser(id: string): Promise<UserRecord | null>;
  getUserByName(name: string): Promise<UserRecord | null>;
  /** Ordered by name. */
  listUsers(): Promise<UserRecord[]>;
  countUsers(): Promise<number>;
  /**
   * The first start's admin: on a database with no users, the admin user and its first token
   * (unscoped, never expiring) in one transaction; false, writing nothing, when there are users
   * (another instance's bootstrap that ran at the same time included).
   */
  bootstrapAdmin(input: { name: string; tokenName: string; secretHash: string }): Promise<boolean>;
  /** NOT_FOUND for an unknown user. */
  setUserAdmin(id: string, isAdmin: boolean): Promise<void>;
  /** Idempotent; NOT_FOUND for an unknown user. */
  addMembership(userId: string, group: string): Promise<void>;
  removeMembership(userId: string, group: string): Promise<void>;
  /** Ordered by name. */
  groupsOf(userId: string): Promise<string[]>;
  /** Groups with at least one member, ordered by name; members ordered by user name. */
  listGroups(): Promise<GroupRecord[]>;
  // grants
  /** Idempotent; NOT_FOUND when a user subject does not exist. */
  grant(grant: GrantRecord): Promise<void>;
  /** Whether the grant existed. */
  revoke(grant: GrantRecord): Promise<boolean>;
  listGrants(): Promise<GrantRecord[]>;
  /** Permission ids granted to the user directly or through any of their groups (sorted, unique). */
  permissionsOf(userId: string): Promise<string[]>;
  // tokens: only the hash of a secret is ever stored
  /** NOT_FOUND for an unknown user; CONFLICT if the secret hash is already used. */
  createToken(input: { userId: string; name: string; secretHash: string; scopes: TokenScopes | null; expiresAt: string | null; parentId?: string | null; connection?: ConnectionBinding | null }): Promise<TokenRecord>;
  /** The connection whose OAuth grant this is (revoked ones too: the caller decides). */
  findTokenByGrant(grantId: string): Promise<TokenRecord | null>;
  /** NOT_FOUND for an unknown token. */
  renameToken(id: string, name: string): Promise<void>;
  /** Finds expired and revoked tokens too: the caller decides. */
  findTokenByHash(secretHash: string): Promise<TokenRecord | null>;
  /** Oldest first. */
  listTokens(userId?: string): Promise<TokenRecord[]>;
  getToken(id: string): Promise<TokenRecord | null>;
  /** True when this call revoked it; false when unknown or already revoked (the first time is kept). */
  revokeToken(id: string): Promise<boolean>;
  /** Records the token's last use: informational, so it does not move `changeMark`. */
  touchToken(id: string, at: string): Promise<void>;
  // user tools and libs; every save is a new version
  /**
   * Saves version 1. CONFLICT if the owner has a tool of that name; NOT_FOUND for an unknown owner;
   * QUOTA_EXCEEDED when the owner already has `maxOwned` tools, libs and sinks (counted in the
   * same transaction as the insert, the owner's row locked, so instances saving at once cannot pass it).
   */
  createUserTool(ownerId: string, input: UserToolInput, maxOwned?: number): Promise<UserToolRecord>;
  /** Saves the next version. NOT_FOUND; CONFLICT on a name clash or when `expectedVersion` is not the current one. */
  updateUserTool(id: string, savedBy: string, input: UserToolInput, expectedVersion?: number): Promise<UserToolRecord>;
  getUserTool(id: string): Promise<UserToolRecord | null>;
  findUserToolByName(ownerId: string, name: string): Promise<UserToolRecord | null>;
  /**
   * The owner's tools plus those shared with everyone or with one of `groups`: first the owner's
   * own (active or not) by name, then others' active shared tools by name.
   */
  listUserToolsVisibleTo(userId: string, groups: readonly string[]): Promise<UserToolSummary[]>;
  /** Whether it existed. Its saved versions are deleted with it. */
  deleteUserTool(id: string): Promise<boolean>;
  /** Newest first. */
  listUserToolVersions(id: string): Promise<UserToolVersion[]>;
  getUserToolVersion(id: string, version: number): Promise<UserToolVersion | null>;
  // audit: append-only, hash-chained
  appendAudit(entry: AuditEntryInput): Promise<AuditEntry>;
  /** Appends rows in order in one transaction (one commit): all of them, or none when it throws. */
  appendAuditBatch(entries: readonly AuditEntryInput[]): Promise<AuditEntry[]>;
  /**
   * Accepts rows for the audit log without waiting for the chain: resolves once they are written
   * (as durable as an append) and they join the chain, in order, soon after; every audit read,
   * prune and append of the store sees them first. A write that fails part-way rejects with a
   * PartialBatchError (partial-batch.ts) naming how many rows are durable. SQLite with
   * `durability = "normal"` on a file (sqlite/audit-journal.ts); where absent, callers append.
   */
  enqueueAudit?(entries: readonly AuditEntryInput[]): Promise<void>;
  /**
   * Readies what the first audited call would otherwise wait for (SQLite: its writer thread and
   * connection, about a second on a busy machine), so that call is not slower than the rest.
   */
  prepareAudit?(): Promise<void>;
  /** Newest first; `since` inclusive, `until` exclusive; `limit` defaults to 100, at most 1000. */
  queryAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** All rows in order, for chain verification. */
  iterateAudit(): AsyncIterable<AuditEntry>;
  /** The last row a prune removed (where the remaining chain starts), or null when nothing was pruned. */
  auditAnchor(): Promise<AuditAnchor | null>;
  /**
   * Deletes the oldest rows, up to the first one whose `at` is not before `olderThan` (so the
   * remaining rows stay one unbroken chain); returns how many were deleted.
   */
  pruneAudit(olderThan: string): Promise<number>;
  // event sinks: a durable outbox (events, and one delivery row per subscribed sink)
  /** Stores the event and a pending delivery for each sink, in one transaction. */
  appendEvent(event: StoredEvent, sinkIds: readonly string[]): Promise<void>;
  /** Every active sink of every owner, without code (the dispatcher reads the one it runs). */
  listSinks(): Promise<UserToolSummary[]>;
  /**
   * Leases up to `limit` due deliveries, at most one per sink and only each sink's oldest open one
   * (in order per sink). PostgreSQL: FOR UPDATE SKIP LOCKED, so two instances never take the same.
   */
  claimDeliveries(now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Settles a delivery; with `lease`, only while the row still holds that lease (true when it did):
   * a claimer whose lease expired and was taken by another changes nothing.
   */
  settleDelivery(id: number, outcome: DeliverySettlement, lease?: string): Promise<boolean>;
  /** Moves a running delivery's lease on to `next`, only while it still holds `lease` (true when it did). */
  renewDelivery(id: number, lease: string, next: string): Promise<boolean>;
  /**
   * Removes deliveries settled for good (delivered, dead) last changed before `olderThan`, then the
   * events older than it that no delivery refers to any more; answers how many rows went.
   */
  pruneOutbox(olderThan: string): Promise<number>;
  /** Newest first. */
  listDeliveries(sinkId: string, limit: number): Promise<DeliveryRecord[]>;
  // OAuth authorization server state: oidc-provider's models as JSON, shared by every instance
  /** Insert or replace. */
  saveOAuthModel(row: OAuthModelRow): Promise<void>;
  /** Not expired; a consumed row's payload carries `consumed` (the time, in seconds). */
  findOAuthModel(model: string, id: string): Promise<Record<string, unknown> | null>;
  findOAuthModelByUid(model: string, uid: string): Promise<Record<string, unknown> | null>;
  /** Marks the row consumed; true only for the one call that did (not already consumed, not missing). */
  consumeOAuthModel(model: string, id: string): Promise<boolean>;
  destroyOAuthModel(model: string, id: string): Promise<void>;
  /** Deletes the grant's rows of one model, or of every model (its codes, tokens and the grant itself). */
  revokeOAuthGrant(grantId: string, model?: string): Promise<void>;
  // instance settings (e.g. the audit masking key), shared by every instance on the database
  /** The stored value of `name`; when absent, stores `create()` first (first writer wins). */
  getOrCreateSetting(name: string, create: () => string): Promise<string>;
  /**
   * A value that changes whenever what this instance reads from the store may have changed (a
   * write here, or a commit by another process), cheap enough to check per request: in-memory
   * caches of tokens, grants and tool lists are valid only while it is unchanged. SQLite only;
   * a store without it is read every time.
   */
  changeMark?(): string;
  close(): Promise<void>;
}
