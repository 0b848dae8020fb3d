/**
 * Shared CLI plumbing: option parsing (node:util parseArgs), config resolution with the documented
 * defaults, and the rule that errors are one clear line on stderr and a non-zero exit.
 */
import fs from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { MAX_TOKEN_LIFETIME_DAYS } from "../admin/tokens.ts";
import { DEFAULT_CONFIG, loadConfigFile, withOverrides, type ServerConfig } from "../config.ts";
import { KnotError } from "../errors.ts";
import { isPostgresUrl } from "../store/postgres/url.ts";

export const BUNDLED_PLUGINS = path.resolve(import.meta.dirname, "../../examples/plugins");

export const COMMON_OPTIONS = {
  db: { type: "string" },
  config: { type: "string" },
  plugins: { type: "string" },
} as const satisfies ParseArgsConfig["options"];

export function parse<O extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new KnotError("BAD_REQUEST", (error as Error).message);
  }
}

/** `./knot-tools.toml` if present; `./plugins` if it exists, else the bundled examples; `./data/knot-tools.db`. */
export function resolveConfig(values: { db?: string; config?: string; plugins?: string; host?: string; port?: string }): ServerConfig {
  const cwd = process.cwd();
  const file = values.config ?? (fs.existsSync(path.join(cwd, "knot-tools.toml")) ? path.join(cwd, "knot-tools.toml") : null);
  const base = file ? loadConfigFile(file) : { ...DEFAULT_CONFIG, database: path.resolve(cwd, DEFAULT_CONFIG.database) };
  const pluginsDir = values.plugins ? path.resolve(values.plugins)
    : base.pluginsDir || (fs.existsSync(path.join(cwd, "plugins")) ? path.join(cwd, "plugins") : BUNDLED_PLUGINS);
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new KnotError("BAD_REQUEST", `--port must be a number between 0 and 65535, got "${values.port}"`);
  }
  const database = values.db === undefined ? undefined : isPostgresUrl(values.db) ? values.db : path.resolve(values.db);
  return withOverrides(base, { pluginsDir, database, host: values.host, port });
}

/**
 * Commands that read or change a database refuse one that is not there (a mistyped `--db`, another
 * folder): opening it would create an empty file, and `audit verify` would call an empty log intact.
 * Only `serve` and `users add` start a database.
 */
export function requireExistingDatabase(database: string): void {
  if (isPostgresUrl(database)) return;
  if (!fs.existsSync(database)) {
    throw new KnotError("NOT_FOUND", `no database at ${database}: pass --db FILE, or create it by starting the server (npm start) or adding the first user (users add NAME)`);
  }
  refuseForeignDatabase(database);
}

/** A SQLite file that exists must be ours: opening it migrates it, adding knot's tables to another program's file. */
export function refuseForeignDatabase(database: string): void {
  if (isPostgresUrl(database) || !fs.existsSync(database)) return;
  let ours = false;
  try {
    const db = new DatabaseSync(database, { readOnly: true });
    try {
      ours = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
    } finally {
      db.close();
    }
  } catch {
    ours = false; // not a SQLite file at all
  }
  if (!ours) throw new KnotError("BAD_REQUEST", `${database} is not a knot-tools database (no schema_migrations table): pass the right --db FILE`);
}

export function usageError(message: string): KnotError {
  return new KnotError("BAD_REQUEST", message);
}

/** Parses `30d`, `12h`, `15m` into an ISO expiry from now. */
export function expiryFrom(text: string, now = Date.now()): string {
  const match = /^(\d+)([dhm])$/.exec(text);
  if (!match) throw usageError(`--expires must look like 30d, 12h or 15m, got "${text}"`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[match[2] as "d" | "h" | "m"];
  const at = now + Number(match[1]) * unit;
  // The API's bound too (far expiries also overflow the ISO text expiries are compared as).
  if (!(at <= now + MAX_TOKEN_LIFETIME_DAYS * 86_400_000)) throw usageError(`--expires ${text} is more than ${MAX_TOKEN_LIFETIME_DAYS} days; leave --expires out for a token that does not expire`);
  return new Date(at).toISOString();
}
