/**
 * `node --no-node-snapshot bench/conformance.ts [--scenario NAME] [--stateless] [--requirements 2026-07-28]`: runs the official
 * MCP conformance suite against the real server with the `conformance` plugin and prints one line
 * per scenario. Exit 1 when a required scenario (tools, ping, initialize, DNS rebinding) fails.
 */
import { parseArgs } from "node:util";
import { runSuite, startConformanceTarget } from "../test/mcp/conformance-harness.ts";

const REQUIRED = /^(tools-|ping$|server-initialize$|dns-rebinding-protection$)/;

const { values } = parseArgs({ options: { scenario: { type: "string" }, stateless: { type: "boolean" }, verbose: { type: "boolean" }, requirements: { type: "string" } } });
const target = await startConformanceTarget({ stateless: values.stateless === true });
const started = performance.now();
try {
  const run = await runSuite(target.url, { ...(values.scenario ? { scenario: values.scenario } : {}), ...(values.requirements ? { requirements: values.requirements } : {}) });
  if (values.verbose) process.stdout.write(run.output);
  for (const r of run.results) {
    const mark = r.failed > 0 ? "FAIL" : r.warnings > 0 ? "warn" : "ok  ";
    process.stdout.write(`${mark} ${r.scenario}: ${r.passed} passed, ${r.failed} failed, ${r.warnings} warnings${REQUIRED.test(r.scenario) ? " (required)" : ""}\n`);
    for (const f of r.failures) process.stdout.write(`       - ${f}\n`);
  }
  const broken = run.results.filter((r) => REQUIRED.test(r.scenario) && r.failed > 0);
  process.stdout.write(`${run.results.length} scenarios in ${((performance.now() - started) / 1000).toFixed(1)} s; required failing: ${broken.map((r) => r.scenario).join(", ") || "none"}\n`);
  process.exitCode = broken.length > 0 || run.results.length === 0 ? 1 : 0;
} finally {
  await target.close();
}
