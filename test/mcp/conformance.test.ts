/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, `server` mode) against the
 * real server with the `conformance` plugin: every tools, ping, initialize and DNS-rebinding
 * scenario must pass. (Resources, prompts and completion are not offered by knot-tools.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runSuite, startConformanceTarget } from "./conformance-harness.ts";

const REQUIRED = [
  "server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-image", "tools-call-audio",
  "tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging", "tools-call-error",
  "tools-call-with-progress", "tools-call-sampling", "tools-call-elicitation", "dns-rebinding-protection",
];

test("the conformance suite's tools, ping, initialize and DNS-rebinding scenarios pass", { timeout: 120_000 }, async () => {
  const target = await startConformanceTarget();
  try {
    const run = await runSuite(target.url);
    const byName = new Map(run.results.map((r) => [r.scenario, r]));
    for (const name of REQUIRED) {
      const result = byName.get(name);
      assert.ok(result, `scenario ${name} ran (output: ${run.output.slice(-2000)})`);
      assert.equal(result.failed, 0, `${name}: ${result.failures.join("; ")}`);
      assert.ok(result.passed > 0, name);
    }
    for (const extra of ["logging-set-level", "elicitation-sep1034-defaults", "elicitation-sep1330-enums"]) {
      assert.equal(byName.get(extra)?.failed, 0, extra);
    }
  } finally {
    await target.close();
  }
});
