/**
 * The SQLite schema, as an ordered list of migrations. Append only: a released migration is never
 * edited, a change is a new entry with the next version. Each one runs in its own transaction.
 * (`PRAGMA foreign_keys` cannot change inside a transaction: a migration that rebuilds a table
 * referenced by others must be written to keep every reference valid at each step.)
 *
 * Choices worth knowing:
 * - Tables are STRICT, so a value of the wrong type is an error rather than silently stored.
 * - Deleting a user tool deletes its saved versions (ON DELETE CASCADE). Keeping them would keep
 *   code (and anything pasted into it) that its owner asked to delete, with no way left to list or
 *   erase it; what was *run* stays answerable from the audit log, which names tool, caller and time.
 * - The audit table has no foreign keys (its rows must outlive users and tokens) and a trigger
 *   refuses UPDATE: rows are appended, and only whole old rows are pruned. The hash chain (see
 *   ../audit-hash.ts) is what detects changes made by someone who drops the trigger.
 * - `audit_anchor` keeps the hash of the last pruned row, so the chain stays continuous even when
 *   every row has been pruned.
 */

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const bool = (column: string, fallback?: 0 | 1): string =>
  `${column} INTEGER NOT NULL${fallback === undefined ? "" : ` DEFAULT ${fallback}`} CHECK (${column} IN (0, 1))`;

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        ${bool("is_admin", 0)},
        created_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE memberships (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        group_name TEXT NOT NULL,
        PRIMARY KEY (user_id, group_name)
      ) STRICT;
      CREATE INDEX memberships_by_group ON memberships (group_name);

      CREATE TABLE grants (
        subject_kind TEXT NOT NULL CHECK (subject_kind IN ('user', 'group')),
        subject TEXT NOT NULL,
        permission TEXT NOT NULL,
        PRIMARY KEY (subject_kind, subject, permission)
      ) STRICT;

      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        secret_hash TEXT NOT NULL UNIQUE,
        scopes TEXT CHECK (scopes IS NULL OR json_valid(scopes)),
        created_at TEXT NOT NULL,
        expires_at TEXT,
        revoked_at TEXT,
        last_used_at TEXT
      ) STRICT;
      CREATE INDEX tokens_by_user ON tokens (user_id);

      CREATE TABLE user_tools (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('tool', 'lib')),
        description TEXT NOT NULL,
        language TEXT NOT NULL CHECK (language IN ('js', 'ts')),
        parameters TEXT NOT NULL CHECK (json_valid(parameters)),
        code TEXT NOT NULL,
        sharing TEXT NOT NULL CHECK (sharing IN ('private', 'everyone') OR sharing GLOB '@?*'),
        ${bool("active")},
        ${bool("read_only", 0)},
        ${bool("destructive", 0)},
        version INTEGER NOT NULL CHECK (version >= 1),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (owner_id, name)
      ) STRICT;
      CREATE INDEX user_tools_shared ON user_tools (sharing, name) WHERE active = 1 AND sharing <> 'private';

      CREATE TABLE user_tool_versions (
        tool_id TEXT NOT NULL REFERENCES user_tools (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        saved_at TEXT NOT NULL,
        saved_by TEXT NOT NULL,
        snapshot TEXT NOT NULL CHECK (json_valid(snapshot)),
        PRIMARY KEY (tool_id, version)
      ) STRICT;

      CREATE TABLE audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        user_id TEXT,
        token_id TEXT,
        client TEXT,
        surface TEXT NOT NULL,
        tool TEXT NOT NULL,
        args TEXT NOT NULL CHECK (json_valid(args)),
        outcome TEXT NOT NULL,
        duration_ms REAL NOT NULL,
        summary TEXT,
        request_id TEXT,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
      ) STRICT;
      CREATE INDEX audit_by_at ON audit (at);
      CREATE INDEX audit_by_user ON audit (user_id, seq);
      CREATE INDEX audit_by_tool ON audit (tool, seq);
      CREATE TRIGGER audit_append_only BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'audit rows are append-only'); END;

      CREATE TABLE audit_anchor (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: "instance settings",
    sql: `
      CREATE TABLE settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 3,
    name: "derived tokens",
    sql: `
      ALTER TABLE tokens ADD COLUMN parent_id TEXT;
      CREATE INDEX tokens_by_parent ON tokens (parent_id) WHERE parent_id IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: "audit client request id",
    sql: `
      ALTER TABLE audit ADD COLUMN client_request_id TEXT;
    `,
  },
  {
    // What each saved tool's lib: imports mean (lib id + version), fixed when it is saved. Tools
    // saved before have none: their lib: imports fail clearly until the owner updates their libs.
    version: 5,
    name: "lib pins",
    sql: `
      ALTER TABLE user_tools ADD COLUMN lib_pins TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(lib_pins));
    `,
  },
  {
    version: 6,
    name: "oauth connections",
    sql: `
      -- A connection is a token bound to an OAuth client; its grant ties the access and refresh
      -- tokens oidc-provider issues to it (revoking the connection revokes the grant).
      ALTER TABLE tokens ADD COLUMN client_id TEXT;
      ALTER TABLE tokens ADD COLUMN client_name TEXT;
      ALTER TABLE tokens ADD COLUMN grant_id TEXT;
      CREATE UNIQUE INDEX tokens_by_grant ON tokens (grant_id) WHERE grant_id IS NOT NULL;

      -- oidc-provider's models (codes, access/refresh tokens, grants, clients, interactions).
      CREATE TABLE oauth_models (
        model TEXT NOT NULL,
        id TEXT NOT NULL,
        payload TEXT NOT NULL CHECK (json_valid(payload)),
        grant_id TEXT,
        uid TEXT,
        expires_at TEXT,
        consumed_at TEXT,
        PRIMARY KEY (model, id)
      ) STRICT;
      CREATE INDEX oauth_models_by_grant ON oauth_models (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX oauth_models_by_uid ON oauth_models (uid) WHERE uid IS NOT NULL;
    `,
  },
  {
    version: 7,
    name: "event sinks and their outbox",
    // A sink keeps kind 'tool' in the row (the kind CHECK cannot be widened in place without
    // rebuilding user_tools, whose DROP would cascade to its versions); a non-null sink_events
    // marks it a sink, and rows.ts reads it back as kind "sink".
    sql: `
      ALTER TABLE user_tools ADD COLUMN sink_events TEXT CHECK (sink_events IS NULL OR json_valid(sink_events));
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL CHECK (json_valid(data))
      ) STRICT;
      CREATE TABLE sink_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        sink_id TEXT NOT NULL REFERENCES user_tools (id) ON DELETE CASCADE,
        event_seq INTEGER NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        next_attempt_at TEXT NOT NULL,
        lease_until TEXT,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX sink_deliveries_open ON sink_deliveries (sink_id, id) WHERE status IN ('pending', 'failed');
      CREATE INDEX sink_deliveries_by_sink ON sink_deliveries (sink_id, id);
      CREATE INDEX user_tools_sinks ON user_tools (created_at, id) WHERE sink_events IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: "audit inbox",
    // Audit rows accepted but not yet in the chain (audit-inbox.ts): the commit of a row
    // here is what acknowledges a call; rows move into \`audit\` (hashed, indexed) in batches soon
    // after, oldest first, each exactly once. The audit table's columns and checks, so a row the
    // chain would refuse is refused when it is offered; no index, no AUTOINCREMENT: one page per commit.
    sql: `
      CREATE TABLE audit_inbox (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        user_id TEXT,
        token_id TEXT,
        client TEXT,
        surface TEXT NOT NULL,
        tool TEXT NOT NULL,
        args TEXT NOT NULL CHECK (json_valid(args)),
        outcome TEXT NOT NULL,
        duration_ms REAL NOT NULL,
        summary TEXT,
        request_id TEXT,
        client_request_id TEXT
      ) STRICT;
    `,
  },
  {
    version: 9,
    name: "events remember the sinks that caused them",
    // The chain of sinks whose runs led to an event (JSON list of sink ids, NULL when no sink did):
    // a delivery runs its sink with that chain plus itself, and an event skips every sink in its
    // chain, so sinks that trigger each other cannot loop (event-bus.ts).
    sql: `
      ALTER TABLE events ADD COLUMN caused_by TEXT CHECK (caused_by IS NULL OR json_valid(caused_by));
    `,
  },
  {
    version: 10,
    name: "event data kept as written",
    // PostgreSQL only (its JSONB event columns become json): SQLite's JSON is text, kept as
    // written. The version is kept so both schemas count alike.
    sql: "SELECT 1;",
  },
  {
    version: 11,
    name: "audit journals: how far each has moved into the chain",
    // A journal file's name (in the folder beside the database) and the bytes of it that are in the
    // chain; advanced in the chain append's own transaction, so a row moves exactly once (audit-journal-move.ts).
    sql: `
      CREATE TABLE audit_journal (
        file TEXT PRIMARY KEY,
        moved INTEGER NOT NULL CHECK (moved >= 0)
      ) STRICT;
    `,
  },
  {
    version: 12,
    name: "a tool's code is its row's last column",
    // A row's columns are stored in order and a long value spills into a chain of overflow pages:
    // reading any column after \`code\` (sharing, active, version...) walked the chain, so listing
    // 600 shared tools of 250 KB read ~150 MB of pages (eighth round). Listings read no code; with
    // it last, they stop before it. ADD/DROP/RENAME COLUMN rewrite the rows in place (a rebuilt
    // table's DROP would cascade to its versions).
    sql: `
      ALTER TABLE user_tools ADD COLUMN code_last TEXT NOT NULL DEFAULT '';
      UPDATE user_tools SET code_last = code;
      ALTER TABLE user_tools DROP COLUMN code;
      ALTER TABLE user_tools RENAME COLUMN code_last TO code;
    `,
  },
]);
