/**
 * One typed configuration with frozen safe defaults, declared once: CONFIG_KEYS below lists every
 * key of `knot-tools.toml` (TOML) with where it lives in the file, its default, what it means and
 * where it lands in the config object. The parser (configFromToml), the defaults (DEFAULT_CONFIG),
 * the type (ServerConfig) and the README's key table (`npm run docs:config`, checked by
 * test/config-readme.test.ts) all come from it. Unknown keys are rejected so a typo never silently
 * falls back to a default. Units are in the key names. `[plugins.<name>]` tables are handed to
 * that plugin as `request.config`.
 */
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_RUN_LIMITS, POOL_RANGES, RUN_LIMIT_MINIMUMS } from "../sandbox/index.ts";
import { AT_LEAST_ONE, DELAY_MS, invalid, key, MAX_TIMER_MS, shownDefault, TIMEOUT_MS, type ConfigOf } from "./config/keys.ts";
import { isTable, readKeys, defaultsOf } from "./config/read-keys.ts";
import { DEFAULT_HTTP_LIMITS } from "./http/connection-limits.ts";
import { KnotError } from "./errors.ts";
import { LOG_LEVELS } from "./log.ts";
import { parseToml } from "./toml.ts";
import { DEFAULT_QUOTAS } from "./tools/quotas.ts";

const LIMITS = DEFAULT_RUN_LIMITS;
const QUOTAS = DEFAULT_QUOTAS;
const HTTP = DEFAULT_HTTP_LIMITS;

export const CONFIG_KEYS = {
  host: key.string("server.host", "127.0.0.1", "address to listen on"),
  port: key.number("server.port", 7700, "port to listen on (0 picks a free one)", { min: 0, max: 65_535 }),
  database: key.path("server.database", "./data/knot-tools.db", "SQLite file (relative to the config file), or a `postgres://` URL"),
  durability: key.oneOf("server.durability", ["full", "normal"], "normal", "SQLite audit rows: `normal` writes them to the audit journal and commits them without an fsync (a row survives SIGKILL at once, power loss from the next synced commit or write-back on); `full` fsyncs them too (~1–5 ms more per call). Store writes (tokens, grants, tools) are always fsynced; docs/security-services.md §4.16"),
  pluginsDir: shownDefault(key.path("server.plugins_dir", "", "the plugins folder"), "`serve`: `./plugins`, else the bundled examples"),
  maxBodyBytes: key.number("server.max_body_bytes", 1_048_576, "largest request body, in bytes (413 past it)", AT_LEAST_ONE),
  http: {
    headersTimeoutMs: key.number("server.headers_timeout_ms", HTTP.headersTimeoutMs, "time a connection has to send its request headers (408 after it)", TIMEOUT_MS),
    requestTimeoutMs: key.number("server.request_timeout_ms", HTTP.requestTimeoutMs, "time a connection has to send its whole request", TIMEOUT_MS),
    keepAliveTimeoutMs: key.number("server.keep_alive_timeout_ms", HTTP.keepAliveTimeoutMs, "how long an idle keep-alive connection stays open", TIMEOUT_MS),
    maxConnections: key.number("server.max_connections", HTTP.maxConnections, "open connections the server holds at most", AT_LEAST_ONE),
    maxConnectionsPerClient: key.number("server.max_connections_per_client", HTTP.maxConnectionsPerClient, "open connections one remote address holds at most (503 past it)", AT_LEAST_ONE),
  },
  handlerTimeoutMs: key.number("server.handler_timeout_ms", 30_000, "deadline of a plugin handler call", TIMEOUT_MS),
  loopbackTokenTtlMs: key.number("server.loopback_token_ttl_ms", 60_000, "lifetime of a run's loopback token", DELAY_MS),
  shutdownGraceMs: key.number("server.shutdown_grace_ms", 10_000, "how long a graceful shutdown waits for running calls", DELAY_MS),
  logLevel: key.oneOf("server.log_level", LOG_LEVELS, "info", "log level (JSON lines on stderr)", { message: `server.log_level must be one of ${LOG_LEVELS.join(", ")}` }),
  sandbox: {
    workers: key.number("sandbox.workers", 2, "sandbox worker processes", POOL_RANGES.workers),
    runsPerWorker: key.number("sandbox.runs_per_worker", 4, "runs one worker holds at once", POOL_RANGES.runsPerWorker),
    workerMemoryMb: key.number("sandbox.worker_memory_mb", 512, "memory budget of a worker process (it is replaced past it)", POOL_RANGES.workerMemoryMb),
    recycleAfterRuns: key.optionalNumber("sandbox.recycle_after_runs", "a worker is retired gracefully after that many runs", "`10000`", POOL_RANGES.recycleAfterRuns),
    userRunsInFlight: key.optionalNumber("sandbox.user_runs_in_flight", "runs one user may have in the sandbox at once", "half of workers × runs_per_worker", POOL_RANGES.userRunsInFlight),
    idleIsolates: key.optionalNumber("sandbox.idle_isolates", "idle user isolates one worker keeps warm between runs (~10–20 MB each; the oldest let go when the worker passes ⅞ of worker_memory_mb)", "4 × runs_per_worker, at most worker_memory_mb ÷ 40", POOL_RANGES.isolateMaxIdle),
    isolateReuse: key.oneOf("sandbox.isolate_reuse", ["user", "never"], undefined, "`user`: a warm isolate per user and tool, a fresh context per run; `never`: a new isolate per run", { optional: true, shown: '`"user"`' }),
  },
  limits: {
    heapMb: key.number("limits.heap_mb", LIMITS.heapMb, "heap of a user tool run", { min: RUN_LIMIT_MINIMUMS.heapMb, max: 65_536 }),
    cpuMs: key.number("limits.cpu_ms", LIMITS.cpuMs, "CPU time of a run", { min: RUN_LIMIT_MINIMUMS.cpuMs, max: MAX_TIMER_MS }),
    wallMs: key.number("limits.wall_ms", LIMITS.wallMs, "wall-clock time of a run", { min: RUN_LIMIT_MINIMUMS.wallMs, max: MAX_TIMER_MS }),
    resultBytes: key.number("limits.result_bytes", LIMITS.resultBytes, "size of a run's result", { min: RUN_LIMIT_MINIMUMS.resultBytes, max: Number.MAX_SAFE_INTEGER }),
    logBytes: key.number("limits.log_bytes", LIMITS.logBytes, "size of a run's captured console output"),
    loopbackCalls: key.number("limits.loopback_calls", LIMITS.loopbackCalls, "plugin calls one run may make over the loopback"),
  },
  quotas: {
    userConcurrentRuns: key.number("quotas.user_concurrent_runs", QUOTAS.userConcurrentRuns, "runs one user may have going at once (429 RATE_LIMITED past it)", AT_LEAST_ONE),
    userRunsPerMinute: key.number("quotas.user_runs_per_minute", QUOTAS.userRunsPerMinute, "runs one user may start per minute", AT_LEAST_ONE),
    tokenConcurrentRuns: key.number("quotas.token_concurrent_runs", QUOTAS.tokenConcurrentRuns, "runs one token may have going at once", AT_LEAST_ONE),
    tokenRunsPerMinute: key.number("quotas.token_runs_per_minute", QUOTAS.tokenRunsPerMinute, "runs one token may start per minute", AT_LEAST_ONE),
    maxConcurrentRuns: key.number("quotas.max_concurrent_runs", QUOTAS.maxConcurrentRuns, "runs going at once, for everyone", AT_LEAST_ONE),
    maxQueuedRuns: key.number("quotas.max_queued_runs", QUOTAS.maxQueuedRuns, "runs waiting for a slot, for everyone"),
    userTools: key.number("quotas.user_tools", QUOTAS.userTools, "tools, libs and sinks one user may keep (403 QUOTA_EXCEEDED past it): every shared one is in each user's listing", AT_LEAST_ONE),
  },
  mcp: {
    stateless: key.boolean("mcp.stateless", false, "serve 2025-11-25 clients without sessions"),
    allowedHosts: key.strings("mcp.allowed_hosts", [], "Host names (with port) /mcp answers besides 127.0.0.1, localhost and [::1]"),
    corsOrigins: key.strings("mcp.cors_origins", [], "browser origins (`https://app.example`) allowed to call /mcp (CORS)", { optional: true, each: (origin) => origin.toLowerCase().replace(/\/+$/, "") }),
  },
  audit: {
    retentionDays: key.number("audit.retention_days", 90, "days audit rows are kept"),
    maskKey: shownDefault(key.nullableString("audit.mask_key", "key of the hash that masks secret and personal arguments"), "generated once, kept in the database"),
  },
  oauth: {
    publicUrl: shownDefault(key.nullableString("oauth.public_url", "the origin assistants reach this server at (the OAuth issuer)", publicOrigin), "the bound address"),
    loopbackClientDocuments: key.boolean("oauth.loopback_client_documents", false, "tests only: fetch client metadata documents from 127.0.0.1 over http"),
  },
  plugins: key.section<PluginTables>("plugins", Object.freeze({}), "each plugin's own table, handed to it as `request.config`", pluginTables),
  sinks: {
    maxAttempts: key.number("sinks.max_attempts", 5, "delivery attempts before an event is `dead`", AT_LEAST_ONE),
    backoffMs: key.number("sinks.backoff_ms", 1_000, "first retry delay (doubling)", DELAY_MS),
    maxBackoffMs: key.number("sinks.max_backoff_ms", 300_000, "longest retry delay", DELAY_MS),
    pollMs: key.number("sinks.poll_ms", 500, "outbox poll interval", TIMEOUT_MS),
    retentionDays: key.number("sinks.retention_days", 30, "days delivered and dead deliveries (and events no delivery needs) are kept; 0 keeps everything"),
  },
};

export type ServerConfig = ConfigOf<typeof CONFIG_KEYS>;

export const DEFAULT_CONFIG = defaultsOf(CONFIG_KEYS) as ServerConfig;

/** Reads a config file (relative paths in it are relative to the file) merged over the defaults. */
export function loadConfigFile(file: string): ServerConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new KnotError("CONFIG_INVALID", `cannot read config file ${file}`);
  }
  return configFromToml(parseToml(text, file), path.dirname(path.resolve(file)));
}

export function configFromToml(doc: Record<string, unknown>, baseDir: string): ServerConfig {
  const config = readKeys(CONFIG_KEYS, doc, { baseDir }) as ServerConfig;
  checkTogether(config);
  return config;
}

/** Checks across keys, once every key is read. */
function checkTogether(config: ServerConfig): void {
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    throw invalid("server.headers_timeout_ms", "server.headers_timeout_ms must not exceed server.request_timeout_ms (the headers are part of the request)");
  }
}

function publicOrigin(value: string): string {
  const url = URL.parse(value);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.pathname !== "/" || url.search || url.hash || url.username) {
    throw invalid("oauth.public_url", 'oauth.public_url must be an origin such as "https://knot.example.com"');
  }
  return url.origin;
}

/** Each plugin's own table, by plugin name. */
type PluginTables = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export const MAX_PLUGIN_TABLE_BYTES = 64 * 1024;

function pluginTables(value: unknown): PluginTables {
  if (value === undefined) return Object.freeze({});
  if (!isTable(value)) throw new KnotError("CONFIG_INVALID", "config: [plugins] must hold one table per plugin", { where: "plugins" });
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, table] of Object.entries(value)) {
    if (!isTable(table)) throw new KnotError("CONFIG_INVALID", `config: [plugins.${name}] must be a table`, { where: `plugins.${name}` });
    if (table.enabled !== undefined && typeof table.enabled !== "boolean") {
      throw new KnotError("CONFIG_INVALID", `config: plugins.${name}.enabled must be true or false`, { where: `plugins.${name}.enabled` });
    }
    // Copied and frozen once per load, handed to every call and to its peers: kept small.
    const size = Buffer.byteLength(JSON.stringify(table), "utf8");
    if (size > MAX_PLUGIN_TABLE_BYTES) {
      throw new KnotError("CONFIG_INVALID", `config: [plugins.${name}] is ${size} bytes as JSON; a plugin's table is at most ${MAX_PLUGIN_TABLE_BYTES} bytes (64 KiB)`, { where: `plugins.${name}` });
    }
    out[name] = Object.freeze({ ...table });
  }
  return Object.freeze(out);
}

/** Apply command-line overrides (already parsed) on top of a config. */
export function withOverrides(config: ServerConfig, overrides: Partial<Pick<ServerConfig, "host" | "port" | "database" | "pluginsDir">>): ServerConfig {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return Object.freeze({ ...config, ...defined });
}
