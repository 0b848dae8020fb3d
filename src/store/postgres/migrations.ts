/**
 * The PostgreSQL schema: the same migrations (versions and names) as ../sqlite/migrations.ts, in
 * PostgreSQL's dialect. Append only, like the SQLite list: a change is a new entry with the next
 * version, added to both lists at once so a database's version means the same on either backend.
 *
 * Dialect choices, each keeping the SQLite store's behaviour:
 * - Every text column is `COLLATE "C"`: ordering and comparison by code point, as SQLite's BINARY
 *   collation does, whatever locale the database was created with (names sort the same on both
 *   backends, and ISO timestamps compare as strings).
 * - JSON columns are `json` (validated, kept exactly as written), not `jsonb`, which would reject
 *   `\u0000` and reorder keys.
 * - `ord` identity columns stand in for SQLite's rowid where insertion order breaks ties.
 * - Timestamps stay ISO 8601 text, as written by the store's clock, so a record reads back equal.
 * - The audit table has no foreign keys and a trigger refuses UPDATE; `audit_anchor` keeps the
 *   hash of the last pruned row (see ../sqlite/migrations.ts for why).
 */

export interface PgMigration {
  readonly version: number;
  readonly name: string;
  /** Several statements, run as one transaction. */
  readonly sql: string;
}

const text = 'TEXT COLLATE "C"';

/**
 * The `audit_append` function as versions 1 and 4 create it (4 adds the client's request id). One
 * text for both, producing each migration's SQL exactly as it was released; see version 1 for how
 * it works.
 */
function auditAppendFunction(withClientRequestId: boolean): string {
  const [param, column, value] = withClientRequestId ? [", p_client_request_id TEXT", " client_request_id,", " p_client_request_id,"] : ["", "", ""];
  // Version 1 wrote a raw newline inside E'…', version 4 the escape \n: the same text to PostgreSQL.
  const newline = withClientRequestId ? "\\n" : "\n";
  return `CREATE FUNCTION audit_append(
        lock_class INTEGER, hashed_before_seq TEXT, hashed_after_seq TEXT,
        p_at TEXT, p_user_id TEXT, p_token_id TEXT, p_client TEXT, p_surface TEXT, p_tool TEXT, p_args JSON,
        p_outcome TEXT, p_duration_ms DOUBLE PRECISION, p_summary TEXT, p_request_id TEXT${param}
      ) RETURNS TABLE (seq BIGINT, prev_hash TEXT, hash TEXT) LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
          head_seq BIGINT;
          head_hash TEXT;
          new_seq BIGINT;
          new_hash TEXT;
        BEGIN
          PERFORM pg_advisory_xact_lock(lock_class, hashtext(coalesce(current_schema(), '')));
          SELECT a.seq, a.hash INTO head_seq, head_hash FROM audit a ORDER BY a.seq DESC LIMIT 1;
          IF NOT FOUND THEN
            SELECT a.seq, a.hash INTO head_seq, head_hash FROM audit_anchor a WHERE a.id = 1;
            IF NOT FOUND THEN
              head_seq := 0;
              head_hash := repeat('0', 64);
            END IF;
          END IF;
          new_seq := head_seq + 1;
          new_hash := encode(sha256(convert_to(head_hash || E'${newline}' || hashed_before_seq || new_seq::text || hashed_after_seq, 'UTF8')), 'hex');
          INSERT INTO audit (seq, at, user_id, token_id, client, surface, tool, args, outcome, duration_ms, summary, request_id,${column} prev_hash, hash)
            VALUES (new_seq, p_at, p_user_id, p_token_id, p_client, p_surface, p_tool, p_args, p_outcome, p_duration_ms, p_summary, p_request_id,${value} head_hash, new_hash);
          RETURN QUERY SELECT new_seq, head_hash, new_hash;
        END
      $$;`;
}

export const PG_MIGRATIONS: readonly PgMigration[] = Object.freeze([
  {
    version: 1,
    name: "initial schema",
    sql: `
      CREATE TABLE users (
        id ${text} PRIMARY KEY,
        name ${text} NOT NULL UNIQUE,
        is_admin BOOLEAN NOT NULL DEFAULT false,
        created_at ${text} NOT NULL
      );

      CREATE TABLE memberships (
        user_id ${text} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        group_name ${text} NOT NULL,
        PRIMARY KEY (user_id, group_name)
      );
      CREATE INDEX memberships_by_group ON memberships (group_name);

      CREATE TABLE grants (
        subject_kind ${text} NOT NULL CHECK (subject_kind IN ('user', 'group')),
        subject ${text} NOT NULL,
        permission ${text} NOT NULL,
        PRIMARY KEY (subject_kind, subject, permission)
      );

      CREATE TABLE tokens (
        id ${text} PRIMARY KEY,
        ord BIGINT GENERATED ALWAYS AS IDENTITY,
        user_id ${text} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name ${text} NOT NULL,
        secret_hash ${text} NOT NULL UNIQUE,
        scopes JSON,
        created_at ${text} NOT NULL,
        expires_at ${text},
        revoked_at ${text},
        last_used_at ${text}
      );
      CREATE INDEX tokens_by_user ON tokens (user_id);

      CREATE TABLE user_tools (
        id ${text} PRIMARY KEY,
        ord BIGINT GENERATED ALWAYS AS IDENTITY,
        owner_id ${text} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name ${text} NOT NULL,
        kind ${text} NOT NULL CHECK (kind IN ('tool', 'lib')),
        description ${text} NOT NULL,
        language ${text} NOT NULL CHECK (language IN ('js', 'ts')),
        parameters JSON NOT NULL,
        code ${text} NOT NULL,
        sharing ${text} NOT NULL CHECK (sharing IN ('private', 'everyone') OR sharing LIKE '@_%'),
        active BOOLEAN NOT NULL,
        read_only BOOLEAN NOT NULL DEFAULT false,
        destructive BOOLEAN NOT NULL DEFAULT false,
        version INTEGER NOT NULL CHECK (version >= 1),
        created_at ${text} NOT NULL,
        updated_at ${text} NOT NULL,
        UNIQUE (owner_id, name)
      );
      CREATE INDEX user_tools_shared ON user_tools (sharing, name) WHERE active AND sharing <> 'private';

      CREATE TABLE user_tool_versions (
        tool_id ${text} NOT NULL REFERENCES user_tools (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        saved_at ${text} NOT NULL,
        saved_by ${text} NOT NULL,
        snapshot JSON NOT NULL,
        PRIMARY KEY (tool_id, version)
      );

      CREATE TABLE audit (
        seq BIGINT PRIMARY KEY,
        at ${text} NOT NULL,
        user_id ${text},
        token_id ${text},
        client ${text},
        surface ${text} NOT NULL,
        tool ${text} NOT NULL,
        args JSON NOT NULL,
        outcome ${text} NOT NULL,
        duration_ms DOUBLE PRECISION NOT NULL,
        summary ${text},
        request_id ${text},
        prev_hash ${text} NOT NULL,
        hash ${text} NOT NULL
      );
      CREATE INDEX audit_by_at ON audit (at);
      CREATE INDEX audit_by_user ON audit (user_id, seq);
      CREATE INDEX audit_by_tool ON audit (tool, seq);
      CREATE FUNCTION audit_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'audit rows are append-only'; END
      $$;
      CREATE TRIGGER audit_append_only BEFORE UPDATE ON audit
        FOR EACH ROW EXECUTE FUNCTION audit_refuse_update();

      CREATE TABLE audit_anchor (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq BIGINT NOT NULL,
        hash ${text} NOT NULL
      );

      -- One round trip per append, and the chain lock held only while this runs (see ../audit.ts).
      -- The caller sends the row's canonical JSON cut around the seq value; this takes the lock,
      -- reads the chain's head in a fresh snapshot (a VOLATILE function's statements each take
      -- one), and hashes prevHash + newline + JSON exactly as ../audit-hash.ts does.
      ${auditAppendFunction(false)}
    `,
  },
  {
    version: 2,
    name: "instance settings",
    sql: `
      CREATE TABLE settings (
        name ${text} PRIMARY KEY,
        value ${text} NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: "derived tokens",
    sql: `
      ALTER TABLE tokens ADD COLUMN parent_id ${text};
      CREATE INDEX tokens_by_parent ON tokens (parent_id) WHERE parent_id IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: "audit client request id",
    sql: `
      ALTER TABLE audit ADD COLUMN client_request_id ${text};

      -- audit_append (version 1) with the client's request id; see version 1 for how it works.
      DROP FUNCTION audit_append(INTEGER, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, JSON, TEXT, DOUBLE PRECISION, TEXT, TEXT);
      ${auditAppendFunction(true)}
    `,
  },
  {
    version: 5,
    name: "lib pins",
    sql: `
      ALTER TABLE user_tools ADD COLUMN lib_pins JSON NOT NULL DEFAULT '[]';
    `,
  },
  {
    version: 6,
    name: "oauth connections",
    sql: `
      -- A connection is a token bound to an OAuth client; its grant ties the access and refresh
      -- tokens oidc-provider issues to it (revoking the connection revokes the grant).
      ALTER TABLE tokens ADD COLUMN client_id ${text};
      ALTER TABLE tokens ADD COLUMN client_name ${text};
      ALTER TABLE tokens ADD COLUMN grant_id ${text};
      CREATE UNIQUE INDEX tokens_by_grant ON tokens (grant_id) WHERE grant_id IS NOT NULL;

      -- oidc-provider's models (codes, access/refresh tokens, grants, clients, interactions).
      CREATE TABLE oauth_models (
        model ${text} NOT NULL,
        id ${text} NOT NULL,
        payload json NOT NULL,
        grant_id ${text},
        uid ${text},
        expires_at ${text},
        consumed_at ${text},
        PRIMARY KEY (model, id)
      );
      CREATE INDEX oauth_models_by_grant ON oauth_models (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX oauth_models_by_uid ON oauth_models (uid) WHERE uid IS NOT NULL;
    `,
  },
  {
    version: 7,
    name: "event sinks and their outbox",
    // As in SQLite: a sink keeps kind 'tool' in the row; a non-null sink_events marks it a sink.
    sql: `
      ALTER TABLE user_tools ADD COLUMN sink_events JSONB;
      CREATE TABLE events (
        seq BIGSERIAL PRIMARY KEY,
        id ${text} NOT NULL UNIQUE,
        type ${text} NOT NULL,
        at ${text} NOT NULL,
        data JSONB NOT NULL
      );
      CREATE TABLE sink_deliveries (
        id BIGSERIAL PRIMARY KEY,
        sink_id ${text} NOT NULL REFERENCES user_tools (id) ON DELETE CASCADE,
        event_seq BIGINT NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
        status ${text} NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error ${text},
        next_attempt_at ${text} NOT NULL,
        lease_until ${text},
        updated_at ${text} NOT NULL
      );
      CREATE INDEX sink_deliveries_open ON sink_deliveries (sink_id, id) WHERE status IN ('pending', 'failed');
      CREATE INDEX sink_deliveries_by_sink ON sink_deliveries (sink_id, id);
      CREATE INDEX user_tools_sinks ON user_tools (created_at, id) WHERE sink_events IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: "audit inbox",
    // SQLite only (its audit_inbox table): here an append is one round trip to audit_append, whose
    // wait is on the network, not the event loop. The version is kept so both schemas count alike.
    sql: "SELECT 1;",
  },
  {
    version: 9,
    name: "events remember the sinks that caused them",
    sql: "ALTER TABLE events ADD COLUMN caused_by JSONB;",
  },
  {
    version: 10,
    name: "event data kept as written",
    // Versions 7 and 9 made these JSONB, against the rule above: a plugin's event with \u0000 was
    // refused and sinks got its keys reordered. Rows already stored keep jsonb's (sorted) text.
    sql: `
      ALTER TABLE events ALTER COLUMN data TYPE json USING data::text::json;
      ALTER TABLE events ALTER COLUMN caused_by TYPE json USING caused_by::text::json;
      ALTER TABLE user_tools ALTER COLUMN sink_events TYPE json USING sink_events::text::json;
    `,
  },
  {
    version: 11,
    name: "audit journals: how far each has moved into the chain",
    // SQLite only (its audit journal files, src/store/sqlite/audit-journal.ts). The version is
    // kept so both schemas count alike.
    sql: "SELECT 1;",
  },
  {
    version: 12,
    name: "a tool's code is its row's last column",
    // SQLite only (reading a column after a long one walks its overflow pages there); PostgreSQL
    // keeps long values out of line (TOAST). The version is kept so both schemas count alike.
    sql: "SELECT 1;",
  },
]);
