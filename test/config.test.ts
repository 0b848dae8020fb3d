import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { configFromToml, DEFAULT_CONFIG } from "../src/config.ts";
import type { KnotError } from "../src/errors.ts";

describe("server configuration", () => {
  it("defaults are safe and complete", () => {
    const config = configFromToml({}, "/srv");
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.durability, "normal");
    assert.deepEqual(config.limits, DEFAULT_CONFIG.limits);
  });

  it("reads keys, resolves paths against the file's folder, keeps PostgreSQL URLs", () => {
    const config = configFromToml({ server: { port: 8080, database: "db/k.db", durability: "full" }, limits: { cpu_ms: 100 }, plugins: { metrics: { url: "x" } } }, "/srv");
    assert.equal(config.port, 8080);
    assert.equal(config.database, "/srv/db/k.db");
    assert.equal(config.durability, "full");
    assert.equal(config.limits.cpuMs, 100);
    assert.equal(configFromToml({ sandbox: { user_runs_in_flight: 3 } }, "/srv").sandbox.userRunsInFlight, 3);
    assert.equal(configFromToml({ sandbox: { isolate_reuse: "never" } }, "/srv").sandbox.isolateReuse, "never");
    assert.throws(() => configFromToml({ sandbox: { isolate_reuse: "always" } }, "/srv"), /isolate_reuse must be "user" or "never"/);
    assert.deepEqual(config.plugins.metrics, { url: "x" });
    const nearCap = configFromToml({ plugins: { big: { blob: "x".repeat(64 * 1024 - 40), enabled: false } } }, "/srv");
    assert.equal(nearCap.plugins.big?.enabled, false, "a table just under 64 KiB is accepted");
    assert.equal(configFromToml({ server: { database: "postgres://u:p@h/db" } }, "/srv").database, "postgres://u:p@h/db");
  });

  it("refuses unknown sections and keys, wrong types and values, naming them", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ servr: {} }, "servr"],
      [{ server: { prot: 1 } }, "server.prot"],
      [{ server: { port: "80" } }, "server.port"],
      [{ server: { durability: "sometimes" } }, "server.durability"],
      [{ limits: { cpu_ms: -1 } }, "limits.cpu_ms"],
      [{ mcp: { allowed_hosts: [1] } }, "mcp.allowed_hosts"],
      [{ plugins: { demo: 3 } }, "plugins.demo"],
      [{ plugins: { demo: { enabled: "no" } } }, "plugins.demo.enabled"],
      [{ plugins: { demo: { blob: "x".repeat(64 * 1024) } } }, "plugins.demo"],
      // Numbers the server would accept and then break on: each is refused at load, naming the key.
      [{ server: { handler_timeout_ms: 3_000_000_000 } }, "server.handler_timeout_ms"], // past Node's timer range: fires at once
      [{ server: { handler_timeout_ms: 0 } }, "server.handler_timeout_ms"],
      [{ server: { port: 70_000 } }, "server.port"],
      [{ server: { max_body_bytes: 0.5 } }, "server.max_body_bytes"],
      [{ limits: { heap_mb: 4 } }, "limits.heap_mb"],
      [{ limits: { cpu_ms: 2.5 } }, "limits.cpu_ms"],
      [{ limits: { wall_ms: 0 } }, "limits.wall_ms"],
      [{ sandbox: { workers: 0 } }, "sandbox.workers"],
      [{ sandbox: { workers: 65 } }, "sandbox.workers"],
      [{ sandbox: { worker_memory_mb: 16 } }, "sandbox.worker_memory_mb"],
      [{ sandbox: { user_runs_in_flight: 0 } }, "sandbox.user_runs_in_flight"],
      [{ quotas: { max_concurrent_runs: 1.5 } }, "quotas.max_concurrent_runs"],
      [{ sinks: { poll_ms: 0 } }, "sinks.poll_ms"],
      [{ sinks: { max_attempts: 0 } }, "sinks.max_attempts"],
    ];
    for (const [doc, where] of cases) {
      assert.throws(() => configFromToml(doc, "/srv"), (e: KnotError) => e.code === "CONFIG_INVALID" && e.detail.where === where, where);
    }
  });
});
