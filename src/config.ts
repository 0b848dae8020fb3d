/**
 * One typed configuration with frozen safe defaults. The file is TOML (`knot-tools.toml`);
 * unknown keys are rejected so a typo never silently falls back to a default. Units are in the
 * key names. `[plugins.<name>]` tables are handed to that plugin as `request.config`.
 */
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_RUN_LIMITS, type RunLimits } from "../sandbox/protocol.ts";
import { DEFAULT_QUOTAS, type QuotaSettings } from "./tools/quotas.ts";
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from "./http/connection-limits.ts";
import { KnotError } from "./errors.ts";
import { LOG_LEVELS, type LogLevel } from "./log.ts";
import { isPostgresUrl } from "./store/postgres/url.ts";
import { parseToml } from "./toml.ts";

export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  /** The URL the sandbox's loopback calls use; defaults to http://127.0.0.1:<bound port>. */
  readonly database: string;
  /**
   * SQLite commit durability. Both fsync every write of the store's own (tokens, grants, tools).
   * "normal" (default) commits audit rows without an fsync: a row survives SIGKILL at once and power
   * loss from the next synced commit, checkpoint or OS write-back on; "full" fsyncs them too (~1–5 ms
   * more per audited call on a busy disk). See docs/security.md §4.16.
   */
  readonly durability: "full" | "normal";
  readonly pluginsDir: string;
  readonly maxBodyBytes: number;
  /** How long a connection may take to send its request, stay idle, and how many one may hold (src/http/connection-limits.ts). */
  readonly http: HttpLimits;
  readonly handlerTimeoutMs: number;
  /** How long a graceful shutdown (SIGTERM, app.close) waits for running calls before stopping them. */
  readonly shutdownGraceMs: number;
  readonly logLevel: LogLevel;
  readonly sandbox: { readonly workers: number; readonly runsPerWorker: number; readonly workerMemoryMb: number; readonly recycleAfterRuns?: number; readonly userRunsInFlight?: number; readonly isolateReuse?: "user" | "never" };
  readonly limits: RunLimits;
  readonly quotas: QuotaSettings;
  readonly loopbackTokenTtlMs: number;
  /** corsOrigins: browser origins (`https://app.example`) allowed to call /mcp (CORS, preflight included). */
  readonly mcp: { readonly stateless: boolean; readonly allowedHosts: readonly string[]; readonly corsOrigins?: readonly string[] };
  readonly audit: { readonly retentionDays: number; readonly maskKey: string | null };
  /** `publicUrl`: the origin assistants reach this server at (the OAuth issuer); default the bound address. */
  readonly oauth: { readonly publicUrl: string | null; readonly loopbackClientDocuments: boolean };
  readonly plugins: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Event sink delivery: attempts before `dead`, first retry delay (doubling, capped), outbox poll interval. */
  readonly sinks: { readonly maxAttempts: number; readonly backoffMs: number; readonly maxBackoffMs: number; readonly pollMs: number };
}

export const DEFAULT_CONFIG: ServerConfig = Object.freeze({
  host: "127.0.0.1",
  port: 7700,
  database: "./data/knot-tools.db",
  durability: "normal",
  pluginsDir: "",
  maxBodyBytes: 1_048_576,
  http: DEFAULT_HTTP_LIMITS,
  handlerTimeoutMs: 30_000,
  shutdownGraceMs: 10_000,
  logLevel: "info",
  sandbox: Object.freeze({ workers: 2, runsPerWorker: 4, workerMemoryMb: 512 }),
  limits: DEFAULT_RUN_LIMITS,
  quotas: DEFAULT_QUOTAS,
  loopbackTokenTtlMs: 60_000,
  mcp: Object.freeze({ stateless: false, allowedHosts: Object.freeze([]), corsOrigins: Object.freeze([]) }),
  audit: Object.freeze({ retentionDays: 90, maskKey: null }),
  oauth: Object.freeze({ publicUrl: null, loopbackClientDocuments: false }),
  plugins: Object.freeze({}),
  sinks: Object.freeze({ maxAttempts: 5, backoffMs: 1_000, maxBackoffMs: 300_000, pollMs: 500 }),
});

const SHAPE: Record<string, Record<string, "string" | "number" | "boolean" | "string[]"> | "string" | "number"> = {
  server: { durability: "string", host: "string", port: "number", database: "string", plugins_dir: "string", max_body_bytes: "number", headers_timeout_ms: "number", request_timeout_ms: "number", keep_alive_timeout_ms: "number", max_connections: "number", max_connections_per_client: "number", handler_timeout_ms: "number", loopback_token_ttl_ms: "number", shutdown_grace_ms: "number", log_level: "string" },
  sandbox: { workers: "number", runs_per_worker: "number", worker_memory_mb: "number", recycle_after_runs: "number", user_runs_in_flight: "number", isolate_reuse: "string" },
  limits: { heap_mb: "number", cpu_ms: "number", wall_ms: "number", result_bytes: "number", log_bytes: "number", loopback_calls: "number" },
  mcp: { stateless: "boolean", allowed_hosts: "string[]", cors_origins: "string[]" },
  sinks: { max_attempts: "number", backoff_ms: "number", max_backoff_ms: "number", poll_ms: "number" },
  quotas: { user_concurrent_runs: "number", user_runs_per_minute: "number", token_concurrent_runs: "number", token_runs_per_minute: "number", max_concurrent_runs: "number", max_queued_runs: "number" },
  audit: { retention_days: "number", mask_key: "string" },
  oauth: { public_url: "string", loopback_client_documents: "boolean" },
};

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
  for (const [section, value] of Object.entries(doc)) {
    if (section === "plugins") continue;
    const shape = SHAPE[section];
    if (!shape || typeof shape !== "object") throw new KnotError("CONFIG_INVALID", `config: unknown section [${section}]`, { where: section });
    checkSection(section, value, shape);
  }
  const s = (doc.server ?? {}) as Record<string, unknown>;
  const sb = (doc.sandbox ?? {}) as Record<string, unknown>;
  const l = (doc.limits ?? {}) as Record<string, unknown>;
  const m = (doc.mcp ?? {}) as Record<string, unknown>;
  const a = (doc.audit ?? {}) as Record<string, unknown>;
  const o = (doc.oauth ?? {}) as Record<string, unknown>;
  const q = (doc.quotas ?? {}) as Record<string, number | undefined>;
  const d = DEFAULT_CONFIG;
  // A PostgreSQL URL (server.database) is not a path: kept as written.
  const rel = (p: unknown, fallback: string) => (typeof p === "string" ? (isPostgresUrl(p) ? p : path.resolve(baseDir, p)) : fallback);
  return Object.freeze({
    host: (s.host as string) ?? d.host,
    port: (s.port as number) ?? d.port,
    database: rel(s.database, d.database),
    durability: durabilityOf(s.durability),
    pluginsDir: rel(s.plugins_dir, d.pluginsDir),
    maxBodyBytes: (s.max_body_bytes as number) ?? d.maxBodyBytes,
    http: httpLimitsOf(s),
    handlerTimeoutMs: (s.handler_timeout_ms as number) ?? d.handlerTimeoutMs,
    loopbackTokenTtlMs: (s.loopback_token_ttl_ms as number) ?? d.loopbackTokenTtlMs,
    shutdownGraceMs: (s.shutdown_grace_ms as number) ?? d.shutdownGraceMs,
    logLevel: logLevelOf(s.log_level) ?? d.logLevel,
    sandbox: Object.freeze({ workers: (sb.workers as number) ?? d.sandbox.workers, runsPerWorker: (sb.runs_per_worker as number) ?? d.sandbox.runsPerWorker, workerMemoryMb: (sb.worker_memory_mb as number) ?? d.sandbox.workerMemoryMb, ...(sb.recycle_after_runs === undefined ? {} : { recycleAfterRuns: sb.recycle_after_runs as number }), ...(sb.user_runs_in_flight === undefined ? {} : { userRunsInFlight: sb.user_runs_in_flight as number }), ...(sb.isolate_reuse === undefined ? {} : { isolateReuse: isolateReuseOf(sb.isolate_reuse) }) }),
    limits: Object.freeze({
      heapMb: (l.heap_mb as number) ?? d.limits.heapMb, cpuMs: (l.cpu_ms as number) ?? d.limits.cpuMs, wallMs: (l.wall_ms as number) ?? d.limits.wallMs,
      resultBytes: (l.result_bytes as number) ?? d.limits.resultBytes, logBytes: (l.log_bytes as number) ?? d.limits.logBytes, loopbackCalls: (l.loopback_calls as number) ?? d.limits.loopbackCalls,
    }),
    quotas: Object.freeze({
      userConcurrentRuns: q.user_concurrent_runs ?? d.quotas.userConcurrentRuns, userRunsPerMinute: q.user_runs_per_minute ?? d.quotas.userRunsPerMinute,
      tokenConcurrentRuns: q.token_concurrent_runs ?? d.quotas.tokenConcurrentRuns, tokenRunsPerMinute: q.token_runs_per_minute ?? d.quotas.tokenRunsPerMinute,
      maxConcurrentRuns: q.max_concurrent_runs ?? d.quotas.maxConcurrentRuns, maxQueuedRuns: q.max_queued_runs ?? d.quotas.maxQueuedRuns,
    }),
    mcp: Object.freeze({
      stateless: (m.stateless as boolean) ?? d.mcp.stateless, allowedHosts: Object.freeze((m.allowed_hosts as string[]) ?? d.mcp.allowedHosts),
      corsOrigins: Object.freeze(((m.cors_origins as string[] | undefined) ?? d.mcp.corsOrigins ?? []).map((o) => o.toLowerCase().replace(/\/+$/, ""))),
    }),
    audit: Object.freeze({ retentionDays: (a.retention_days as number) ?? d.audit.retentionDays, maskKey: (a.mask_key as string) ?? d.audit.maskKey }),
    oauth: Object.freeze({ publicUrl: publicUrlOf(o.public_url), loopbackClientDocuments: (o.loopback_client_documents as boolean) ?? d.oauth.loopbackClientDocuments }),
    plugins: pluginTables(doc.plugins),
    sinks: sinkSettings((doc.sinks ?? {}) as Record<string, number | undefined>),
  });
}

/** The connection limits are never 0: Node reads 0 as "no limit", which is what they are here to prevent. */
function httpLimitsOf(s: Record<string, unknown>): HttpLimits {
  const keys = [["headersTimeoutMs", "headers_timeout_ms"], ["requestTimeoutMs", "request_timeout_ms"], ["keepAliveTimeoutMs", "keep_alive_timeout_ms"], ["maxConnections", "max_connections"], ["maxConnectionsPerClient", "max_connections_per_client"]] as const;
  const limits = { ...DEFAULT_HTTP_LIMITS };
  for (const [field, key] of keys) {
    const value = s[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || (value as number) < 1) throw new KnotError("CONFIG_INVALID", `config: server.${key} must be a whole number of at least 1`, { where: `server.${key}` });
    limits[field] = value as number;
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new KnotError("CONFIG_INVALID", "config: server.headers_timeout_ms must not exceed server.request_timeout_ms (the headers are part of the request)", { where: "server.headers_timeout_ms" });
  }
  return Object.freeze(limits);
}

function sinkSettings(k: Record<string, number | undefined>): ServerConfig["sinks"] {
  const d = DEFAULT_CONFIG.sinks;
  return Object.freeze({ maxAttempts: k.max_attempts ?? d.maxAttempts, backoffMs: k.backoff_ms ?? d.backoffMs, maxBackoffMs: k.max_backoff_ms ?? d.maxBackoffMs, pollMs: k.poll_ms ?? d.pollMs });
}

function publicUrlOf(value: unknown): string | null {
  if (value === undefined) return null;
  const url = URL.parse(String(value));
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.pathname !== "/" || url.search || url.hash || url.username) {
    throw new KnotError("CONFIG_INVALID", 'config: oauth.public_url must be an origin such as "https://knot.example.com"', { where: "oauth.public_url" });
  }
  return url.origin;
}

function logLevelOf(value: unknown): LogLevel | undefined {
  if (value === undefined) return undefined;
  if (LOG_LEVELS.includes(value as LogLevel)) return value as LogLevel;
  throw new KnotError("CONFIG_INVALID", `config: server.log_level must be one of ${LOG_LEVELS.join(", ")}`, { where: "server.log_level" });
}

function durabilityOf(value: unknown): ServerConfig["durability"] {
  if (value === undefined) return DEFAULT_CONFIG.durability;
  if (value === "full" || value === "normal") return value;
  throw new KnotError("CONFIG_INVALID", 'config: server.durability must be "full" or "normal"', { where: "server.durability" });
}

function isolateReuseOf(value: unknown): "user" | "never" {
  if (value === "user" || value === "never") return value;
  throw new KnotError("CONFIG_INVALID", 'config: sandbox.isolate_reuse must be "user" or "never"', { where: "sandbox.isolate_reuse" });
}

function checkSection(section: string, value: unknown, shape: Record<string, string>): void {
  if (!isTable(value)) throw new KnotError("CONFIG_INVALID", `config: [${section}] must be a table`, { where: section });
  for (const [key, v] of Object.entries(value)) {
    const type = shape[key];
    if (!type) throw new KnotError("CONFIG_INVALID", `config: unknown key ${section}.${key}`, { where: `${section}.${key}` });
    const ok = type === "string[]" ? Array.isArray(v) && v.every((x) => typeof x === "string")
      : type === "number" ? typeof v === "number" && Number.isFinite(v) && v >= 0 : typeof v === type;
    if (!ok) throw new KnotError("CONFIG_INVALID", `config: ${section}.${key} must be ${type === "string[]" ? "a list of strings" : `a ${type}`}`, { where: `${section}.${key}` });
  }
}

export const MAX_PLUGIN_TABLE_BYTES = 64 * 1024;

function pluginTables(value: unknown): ServerConfig["plugins"] {
  if (value === undefined) return Object.freeze({});
  if (!isTable(value)) throw new KnotError("CONFIG_INVALID", "config: [plugins] must hold one table per plugin", { where: "plugins" });
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, table] of Object.entries(value)) {
    if (!isTable(table)) throw new KnotError("CONFIG_INVALID", `config: [plugins.${name}] must be a table`, { where: `plugins.${name}` });
    if (table.enabled !== undefined && typeof table.enabled !== "boolean") {
      throw new KnotError("CONFIG_INVALID", `config: plugins.${name}.enabled must be true or false`, { where: `plugins.${name}.enabled` });
    }
    // Handed to the plugin as request.config on every call: a bounded size keeps that cheap.
    const size = Buffer.byteLength(JSON.stringify(table), "utf8");
    if (size > MAX_PLUGIN_TABLE_BYTES) {
      throw new KnotError("CONFIG_INVALID", `config: [plugins.${name}] is ${size} bytes as JSON; a plugin's table is at most ${MAX_PLUGIN_TABLE_BYTES} bytes (64 KiB)`, { where: `plugins.${name}` });
    }
    out[name] = Object.freeze({ ...table });
  }
  return Object.freeze(out);
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Apply command-line overrides (already parsed) on top of a config. */
export function withOverrides(config: ServerConfig, overrides: Partial<Pick<ServerConfig, "host" | "port" | "database" | "pluginsDir">>): ServerConfig {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return Object.freeze({ ...config, ...defined });
}
