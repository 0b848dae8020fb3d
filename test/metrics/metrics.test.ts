/**
 * `GET /metrics`: admins only, Prometheus text, one registry per app; the counters move with the
 * calls that feed them (runs, limit trips, denials, loopback and handler calls) and the pool and
 * queue gauges are read on scrape.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEFAULT_CONFIG } from "../../src/config.ts";
import { outcomeLabel } from "../../src/metrics/metrics.ts";
import { sample, startTracedApp, type TracedApp } from "./helpers.ts";

const CALL = (fn: string, params = "{}") => `import { call } from "knot:plugin";\nexport default async () => call("trace", "${fn}", ${params});\n`;

describe("/metrics", () => {
  let t: TracedApp;
  let admin: { token: string };
  let alice: { token: string };

  before(async () => {
    t = await startTracedApp({
      limits: { ...DEFAULT_CONFIG.limits, cpuMs: 100, wallMs: 5_000 },
      quotas: { ...DEFAULT_CONFIG.quotas, userConcurrentRuns: 1 },
    });
    admin = await t.userWithToken("root", { admin: true });
    alice = await t.userWithToken("alice", { grants: ["knot.mcp", "knot.tools.author"] });
  });
  after(() => t.app.close());

  const scrape = async () => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${admin.token}` } });
    assert.equal(res.status, 200);
    return res.text();
  };
  const run = async (code: string, token = alice.token) => {
    const res = await fetch(`${t.url}/api/tools/run`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ code }) });
    return { status: res.status, body: (await res.json()) as { ok?: boolean; error?: { code: string } | string; code?: string } };
  };

  it("needs an admin's credential", async () => {
    assert.equal((await fetch(`${t.url}/metrics`)).status, 401);
    assert.equal((await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${alice.token}` } })).status, 403);
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${admin.token}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^# HELP knot_calls_total /m);
    assert.ok(sample(text, "process_resident_memory_bytes") > 0, "process metrics are in the app's registry");
  });

  it("counts runs, loopback and handler calls by outcome", async () => {
    const before = await scrape();
    assert.equal((await run(CALL("ok"))).body.ok, true);
    assert.equal((await run(CALL("boom"))).body.ok, false);
    const now = await scrape();
    const moved = (name: string, labels: Record<string, string>) => sample(now, name, labels) - sample(before, name, labels);
    assert.equal(moved("knot_calls_total", { surface: "api", outcome: "ok" }), 1);
    assert.equal(moved("knot_calls_total", { surface: "api", outcome: "LOOPBACK_FAILED" }), 1);
    assert.equal(moved("knot_call_duration_seconds_count", { surface: "api" }), 2);
    assert.equal(moved("knot_sandbox_runs_total", { outcome: "ok" }), 1);
    assert.equal(moved("knot_sandbox_run_duration_seconds_count", {}), 2);
    assert.equal(moved("knot_loopback_calls_total", { outcome: "ok" }), 1);
    assert.equal(moved("knot_loopback_calls_total", { outcome: "HANDLER_FAILED" }), 1);
    assert.equal(moved("knot_plugin_handler_calls_total", { plugin: "trace", outcome: "ok" }), 1);
    assert.equal(moved("knot_plugin_handler_calls_total", { plugin: "trace", outcome: "HANDLER_FAILED" }), 1);
  });

  it("counts limit trips by kind and denials by code", async () => {
    const before = await scrape();
    const spin = await run("export default () => { for (;;) {} };");
    assert.equal(typeof spin.body.error === "object" && spin.body.error.code, "CPU_LIMIT");
    const gated = await run(CALL("gated"));
    assert.equal(typeof gated.body.error === "object" && gated.body.error.code, "PERMISSION_DENIED");
    assert.equal((await fetch(`${t.url}/api/tools`, { headers: { authorization: "Bearer kt_not_a_token" } })).status, 401);
    // One run at a time per user: the second, while the first waits on a slow handler, is refused.
    const slow = run(CALL("slow", "{ ms: 600 }"));
    await new Promise((r) => setTimeout(r, 200));
    const refused = await run(CALL("ok"));
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, "RATE_LIMITED");
    assert.equal((await slow).body.ok, true);
    const now = await scrape();
    const moved = (name: string, labels: Record<string, string>) => sample(now, name, labels) - sample(before, name, labels);
    assert.equal(moved("knot_limit_trips_total", { kind: "CPU_LIMIT" }), 1);
    assert.equal(moved("knot_denials_total", { code: "PERMISSION_DENIED", surface: "loopback" }), 1, "the loopback call refused by the gate");
    assert.equal(moved("knot_denials_total", { code: "UNAUTHENTICATED", surface: "api" }), 1);
    assert.equal(moved("knot_denials_total", { code: "RATE_LIMITED", surface: "api" }), 1);
  });

  it("counts MCP calls and reads the pool, queue and session gauges on scrape", async () => {
    const client = new Client({ name: "metrics-test", version: "1.0.0" }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${alice.token}` } } }));
    try {
      const before = await scrape();
      const result = await client.callTool({ name: "trace_ok", arguments: {} });
      assert.notEqual(result.isError, true);
      const now = await scrape();
      assert.equal(sample(now, "knot_calls_total", { surface: "mcp", outcome: "ok" }) - sample(before, "knot_calls_total", { surface: "mcp", outcome: "ok" }), 1);
      assert.equal(sample(now, "knot_mcp_sessions"), 1);
      assert.equal(sample(now, "knot_sandbox_workers"), 1);
      assert.equal(sample(now, "knot_run_queue_depth"), 0);
      assert.equal(sample(now, "knot_http_requests_in_flight"), 1, "the scrape itself");
      assert.match(now, /^knot_sandbox_worker_restarts_total 0$/m);
    } finally {
      await client.close();
    }
  });

  it("two apps in one process keep separate registries", async () => {
    const other = await startTracedApp();
    try {
      const root = await other.userWithToken("root", { admin: true });
      const text = await (await fetch(`${other.url}/metrics`, { headers: { authorization: `Bearer ${root.token}` } })).text();
      assert.equal(sample(text, "knot_sandbox_runs_total"), 0, "the first app's runs are not counted here");
      assert.ok(sample(await scrape(), "knot_sandbox_runs_total") >= 5);
    } finally {
      await other.app.close();
    }
  });

  it("keeps label values bounded", () => {
    assert.equal(outcomeLabel("ok"), "ok");
    assert.equal(outcomeLabel("HANDLER_TIMEOUT"), "HANDLER_TIMEOUT");
    assert.equal(outcomeLabel("weird code {with} \"quotes\""), "OTHER");
  });
});
