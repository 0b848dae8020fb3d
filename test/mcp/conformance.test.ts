/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, `server`
 * mode) against the real server with the `conformance` plugin, once per revision. Resources,
 * prompts and completion are not offered by knot-tools (nor the prompts/get input-required case);
 * the tasks extension is not scored by the suite and not offered.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runSuite, startConformanceTarget, type ScenarioResult } from "./conformance-harness.ts";

const REQUIRED_2025 = [
  "server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-image", "tools-call-audio",
  "tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging", "tools-call-error",
  "tools-call-with-progress", "tools-call-sampling", "tools-call-elicitation", "dns-rebinding-protection",
  "logging-set-level", "elicitation-sep1034-defaults", "elicitation-sep1330-enums", "server-sse-multiple-streams", "server-session-lifecycle",
  "json-schema-2020-12",
];

const REQUIRED_2026 = [
  "server-stateless", "tools-list", "tools-call-simple-text", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
  "tools-call-mixed-content", "tools-call-error", "tools-call-with-progress", "server-sse-multiple-streams", "dns-rebinding-protection",
  "caching", "sep-2164-resource-not-found", "http-header-validation", "http-custom-header-server-validation", "json-schema-2020-12",
  ...["basic-elicitation", "basic-sampling", "basic-list-roots", "request-state", "multiple-input-requests", "multi-round",
    "missing-input-response", "result-type", "unsupported-methods", "tampered-state", "capability-check", "ignore-extra-params",
    "validate-input"].map((name) => `input-required-result-${name}`),
];

function assertPassed(results: readonly ScenarioResult[], required: readonly string[], output: string): void {
  const byName = new Map(results.map((r) => [r.scenario, r]));
  for (const name of required) {
    const result = byName.get(name);
    assert.ok(result, `scenario ${name} ran (output: ${output.slice(-2000)})`);
    assert.equal(result.failed, 0, `${name}: ${result.failures.join("; ")}`);
    assert.ok(result.passed > 0, name);
  }
}

test("2025-11-25: the tools, ping, initialize, logging, elicitation and DNS-rebinding scenarios pass", { timeout: 180_000 }, async () => {
  const target = await startConformanceTarget();
  try {
    const run = await runSuite(target.url, { requirements: "2025-11-25" });
    assertPassed(run.results, REQUIRED_2025, run.output);
  } finally {
    await target.close();
  }
});

test("2026-07-28: stateless serving, discovery, caching, routing and Mcp-Param headers, 2020-12 schemas and every tools input-required scenario pass", { timeout: 180_000 }, async () => {
  const target = await startConformanceTarget();
  try {
    const run = await runSuite(target.url, { requirements: "2026-07-28" });
    assertPassed(run.results, REQUIRED_2026, run.output);
  } finally {
    await target.close();
  }
});
