/**
 * The server's Prometheus metrics (`GET /metrics`, admins only). Each app owns its registry, never
 * prom-client's global one, so several apps in one process (tests, benches) do not clash. Counters
 * are fed by the observers in `observers.ts`; pool sizes and queue depths are read on scrape.
 * Label values are bounded: outcomes are error codes (anything else becomes `OTHER`), surfaces and
 * plugin names come from the host, never from a caller. This is the only file importing prom-client.
 *
 * @example
 *   const metrics = createMetrics();
 *   metrics.watch({ sandbox: () => pool.stats(), quotas: () => quotas.stats(), ... });
 *   metrics.callAudited("mcp", "ok", 12.5);
 *   const text = await metrics.render();
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { SandboxPoolStats } from "../../sandbox/index.ts";

/** Live figures read at each scrape. */
export interface MetricSources {
  sandbox(): SandboxPoolStats;
  quotas(): { readonly running: number; readonly queued: number };
  httpInFlight(): number;
  mcpSessions(): number;
}

export interface Metrics {
  readonly contentType: string;
  /** Sets the live sources; gauges read nothing until this is called. */
  watch(sources: MetricSources): void;
  /** One audited call (every surface writes exactly one audit row per call). */
  callAudited(surface: string, outcome: string, durationMs: number): void;
  /** One sandbox run ended ("ok" or its error code). */
  sandboxRun(outcome: string, durationMs: number): void;
  /** One plugin handler ran ("ok" or its error code). */
  handlerCall(plugin: string, outcome: string, durationMs: number): void;
  /** A credential was refused (HTTP 401) on a route of this class. */
  authRefused(routeClass: string): void;
  /** An audit row could not be written as given: a `[unrecordable]` fallback row stands in for it. */
  auditFallback(): void;
  /** Not even the fallback row could be written (the store is failing). */
  auditLost(): void;
  render(): Promise<string>;
}

/** Outcomes that are a limit tripping (the sandbox's own limits and the handler deadline). */
export const LIMIT_CODES: ReadonlySet<string> = new Set(["TOOL_TIMEOUT", "CPU_LIMIT", "MEMORY_LIMIT", "RESULT_TOO_LARGE", "LOOPBACK_LIMIT", "HANDLER_TIMEOUT"]);
/** Outcomes that are a refusal of the caller. */
export const DENIAL_CODES: ReadonlySet<string> = new Set(["PERMISSION_DENIED", "UNAUTHENTICATED", "RATE_LIMITED"]);

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const CODE = /^[A-Z][A-Z0-9_]{0,47}$/;

/** "ok" or an error code; anything else (a plugin's odd code) collapses into OTHER. */
export function outcomeLabel(outcome: string): string {
  return outcome === "ok" || CODE.test(outcome) ? outcome : "OTHER";
}

const ROUTE_SURFACE: Record<string, string> = { mcp: "mcp", plugin: "http", api: "api", "api-read": "api" };

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  let sources: MetricSources | null = null;
  collectDefaultMetrics({ register: registry });

  const calls = new Counter({ name: "knot_calls_total", help: "Tool and handler calls, as audited, by surface and outcome", labelNames: ["surface", "outcome"], registers });
  const callSeconds = new Histogram({ name: "knot_call_duration_seconds", help: "Duration of audited calls by surface", labelNames: ["surface"], buckets: DURATION_BUCKETS, registers });
  const runs = new Counter({ name: "knot_sandbox_runs_total", help: "User tool runs in the sandbox by outcome", labelNames: ["outcome"], registers });
  const runSeconds = new Histogram({ name: "knot_sandbox_run_duration_seconds", help: "Duration of sandbox runs", buckets: DURATION_BUCKETS, registers });
  const trips = new Counter({ name: "knot_limit_trips_total", help: "Runs and handler calls stopped by a limit, by kind", labelNames: ["kind"], registers });
  const denials = new Counter({ name: "knot_denials_total", help: "Refused calls and credentials by code and surface", labelNames: ["code", "surface"], registers });
  const loopback = new Counter({ name: "knot_loopback_calls_total", help: "Plugin handler calls from user tools over the loopback, by outcome", labelNames: ["outcome"], registers });
  const handlers = new Counter({ name: "knot_plugin_handler_calls_total", help: "Plugin handler invocations by plugin and outcome", labelNames: ["plugin", "outcome"], registers });
  const handlerSeconds = new Histogram({ name: "knot_plugin_handler_duration_seconds", help: "Duration of plugin handler invocations", labelNames: ["plugin"], buckets: DURATION_BUCKETS, registers });

  // Children bound to their label values once: prom-client hashes the label object on every call otherwise.
  const callsBy = boundChildren((surface, outcome) => calls.labels(surface, outcome));
  const callSecondsBy = boundChildren((surface) => callSeconds.labels(surface));
  const handlersBy = boundChildren((plugin, outcome) => handlers.labels(plugin, outcome));
  const handlerSecondsBy = boundChildren((plugin) => handlerSeconds.labels(plugin));

  const auditFallbacks = new Counter({ name: "knot_audit_fallback_rows_total", help: "Audit rows written as [unrecordable] fallbacks because the real row could not be stored", registers });
  const auditLost = new Counter({ name: "knot_audit_rows_lost_total", help: "Audited calls whose row, fallback included, could not be stored", registers });

  const gauge = (name: string, help: string, read: (s: MetricSources) => number) => new Gauge({
    name, help, registers,
    collect() {
      if (sources) this.set(read(sources));
    },
  });
  gauge("knot_sandbox_workers", "Sandbox worker processes ready to serve", (s) => s.sandbox().workers);
  gauge("knot_sandbox_runs_active", "Runs held by sandbox workers right now", (s) => s.sandbox().busy);
  gauge("knot_sandbox_runs_queued", "Runs waiting for a sandbox worker slot", (s) => s.sandbox().queued);
  gauge("knot_runs_in_progress", "Runs admitted by the global run cap (quotas)", (s) => s.quotas().running);
  gauge("knot_run_queue_depth", "Runs waiting in the bounded run queue (quotas)", (s) => s.quotas().queued);
  gauge("knot_http_requests_in_flight", "HTTP requests being handled (long-lived MCP streams excluded)", (s) => s.httpInFlight());
  gauge("knot_mcp_sessions", "Open MCP Streamable HTTP sessions", (s) => s.mcpSessions());
  let restartsSeen = 0;
  new Counter({
    name: "knot_sandbox_worker_restarts_total", help: "Sandbox worker processes replaced after dying or being killed", registers,
    collect() {
      const restarts = sources?.sandbox().restarts ?? restartsSeen;
      if (restarts > restartsSeen) this.inc(restarts - restartsSeen);
      restartsSeen = restarts;
    },
  });

  return {
    contentType: registry.contentType,
    watch(s) {
      sources = s;
    },
    callAudited(surface, outcome, durationMs) {
      const code = outcomeLabel(outcome);
      callsBy(surface, code).inc();
      callSecondsBy(surface).observe(durationMs / 1000);
      if (DENIAL_CODES.has(code)) denials.inc({ code, surface });
      if (surface === "loopback") loopback.inc({ outcome: code });
    },
    sandboxRun(outcome, durationMs) {
      const code = outcomeLabel(outcome);
      runs.inc({ outcome: code });
      runSeconds.observe(durationMs / 1000);
      if (LIMIT_CODES.has(code)) trips.inc({ kind: code });
    },
    handlerCall(plugin, outcome, durationMs) {
      const code = outcomeLabel(outcome);
      handlersBy(plugin, code).inc();
      handlerSecondsBy(plugin).observe(durationMs / 1000);
      if (LIMIT_CODES.has(code)) trips.inc({ kind: code });
    },
    authRefused(routeClass) {
      denials.inc({ code: "UNAUTHENTICATED", surface: ROUTE_SURFACE[routeClass] ?? "http" });
    },
    auditFallback: () => auditFallbacks.inc(),
    auditLost: () => auditLost.inc(),
    render: () => registry.metrics(),
  };
}

/** A metric's child per label values, made on first use (label values are bounded, see the header). */
function boundChildren<T>(make: (...values: string[]) => T): (...values: string[]) => T {
  const children = new Map<string, T>();
  return (...values) => {
    const key = values.join("\u0000");
    let child = children.get(key);
    if (child === undefined) children.set(key, (child = make(...values)));
    return child;
  };
}
