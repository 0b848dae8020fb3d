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
    ];
    for (const [doc, where] of cases) {
      assert.throws(() => configFromToml(doc, "/srv"), (e: KnotError) => e.code === "CONFIG_INVALID" && e.detail.where === where, where);
    }
  });
});
