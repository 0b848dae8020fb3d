/** `npm run bench`: the sandbox and MCP benchmarks, each with its baseline measured in the same run. */
import { formatRows, runMcpBench } from "./mcp.ts";
import { runSandboxBench } from "./sandbox.ts";

for (const line of await runSandboxBench(Number(process.env.BENCH_RUNS ?? 200))) console.log(line);
console.log("\nMCP tools/call (baseline: a bare SDK server with the same echo tool)");
console.log(formatRows(await runMcpBench(Number(process.env.BENCH_CALLS ?? 1000))));
process.exit(0);
