/** `npm run bench`: the sandbox and MCP benchmarks, each with its baseline measured in the same run. */
import { formatRows, runMcpBench } from "./mcp.ts";
import { runSandboxBench } from "./sandbox.ts";

for (const line of await runSandboxBench(Number(process.env.BENCH_RUNS ?? 200))) console.log(line);
for (const durability of ["full", "normal"] as const) {
  console.log(`\nMCP tools/call, SQLite durability "${durability}" (baseline: a bare SDK server with the same echo tool)`);
  console.log(formatRows(await runMcpBench(Number(process.env.BENCH_CALLS ?? 1000), undefined, durability)));
}
process.exit(0);
