/**
 * `npm run bench`: the sandbox and MCP benchmarks, each with its baseline measured in the same
 * run, then issue 13's table: the issue's "today" figure, this run with `isolate_reuse = "never"`
 * (today's one isolate per run), this run with "user" (isolate per user), and the goal.
 * BENCH_RUNS, BENCH_CALLS and BENCH_RSS_RUNS size the parts (defaults 200, 600, 10000);
 * BENCH_DURABILITY=full measures the MCP part with an fsync per audit batch. Before the table:
 * bench/audit.ts (an audit row acknowledged through the journal vs the chain append) and
 * bench/sandbox-profile.ts per mode (CPU per run in the host and the workers) and
 * bench/context-profile.ts (the CPU of a run's fresh context and of the guest runtime in it) and
 * bench/floors.ts (the process and thread crossings a sandboxed call pays and the bare server does not).
 */
import { DEFAULT_CONFIG } from "../src/config.ts";
import { formatRows, runMcpBench, type BenchRow, type Revision } from "./mcp.ts";
import { runSandboxBench, type SandboxNumbers } from "./sandbox.ts";
import { runRssBench, type RssNumbers } from "./sandbox-rss.ts";
import { profileContext } from "./context-profile.ts";
import { profileSandbox } from "./sandbox-profile.ts";
import { runAuditBench } from "./audit.ts";
import { measureFloors } from "./floors.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const CALLS = Number(process.env.BENCH_CALLS ?? 600);
const RSS_RUNS = Number(process.env.BENCH_RSS_RUNS ?? 10_000);
/** The server's default ("normal"); BENCH_DURABILITY=full measures one fsync per audit batch. */
const DURABILITY = process.env.BENCH_DURABILITY === "full" ? "full" : DEFAULT_CONFIG.durability;
const MODES = ["never", "user"] as const;
type Mode = (typeof MODES)[number];
const REVISIONS: readonly Revision[] = ["2025-11-25", "2026-07-28"];

const sandbox = {} as Record<Mode, SandboxNumbers>;
const mcp = {} as Record<Mode, BenchRow[]>;
const rss = {} as Record<Mode, RssNumbers>;
const rssText = (numbers: RssNumbers) => `${numbers.beforeMb.toFixed(0)} → ${numbers.afterMb.toFixed(0)} MB (${numbers.minMb.toFixed(0)}–${numbers.maxMb.toFixed(0)} on the way)`;
for (const mode of MODES) {
  const { lines, numbers } = await runSandboxBench(RUNS, mode);
  sandbox[mode] = numbers;
  for (const line of lines) console.log(line);
  console.log(`\nMCP tools/call, isolate_reuse "${mode}", SQLite durability "${DURABILITY}" (baseline: a bare SDK server with the same echo tool)`);
  mcp[mode] = await runMcpBench(CALLS, undefined, DURABILITY, mode);
  console.log(formatRows(mcp[mode]));
  rss[mode] = await runRssBench(RSS_RUNS, mode);
  console.log(`worker RSS over ${RSS_RUNS} runs (1 worker, no recycling): ${rssText(rss[mode])}\n`);
}

// What a call waits for to have its audit row acknowledged (SQLite, "normal"): the journal against the chain append.
for (const line of await runAuditBench(Math.max(500, RUNS * 5))) console.log(line);
console.log("");

// Where a trivial run's time goes, on the pool alone (CPU per run is the number to compare on a shared machine).
for (const mode of MODES) for (const line of await profileSandbox(mode, RUNS)) console.log(line);
for (const line of profileContext(Math.max(1_000, RUNS * 5))) console.log(line);
for (const line of await measureFloors()) console.log(line);
console.log("");

function vsBare(rows: BenchRow[], target: string, concurrency: number, revision: Revision): { p50: number; rate: number; callsPerSecond: number } {
  const pick = (name: string) => rows.find((r) => r.target === name && r.concurrency === concurrency && r.revision === revision)!;
  const row = pick(target);
  const bare = pick("bare SDK server");
  return { p50: row.p50Ms / bare.p50Ms, rate: row.callsPerSecond / bare.callsPerSecond, callsPerSecond: row.callsPerSecond };
}

const x = (n: number) => `${n.toFixed(2)}×`;
/** A ratio against the bare server in both revisions: "2025-11-25 / 2026-07-28" (issue 11 asks for both). */
const both = (pick: (revision: Revision) => string) => REVISIONS.map(pick).join(" / ");
const rows: Array<[string, string, (mode: Mode) => string, string]> = [
  ["plugin tool `tools/call` p50, 1 client, vs bare", "1.4–3.1×", (m) => both((r) => x(vsBare(mcp[m], "plugin tool", 1, r).p50)), "≤ 1.3×"],
  ["plugin tool calls/s, 16 clients, vs bare", "0.4–0.9×", (m) => both((r) => x(vsBare(mcp[m], "plugin tool", 16, r).rate)), "≥ 0.9×"],
  ["user tool (sandbox) p50, 1 client, vs bare", "4–13×", (m) => both((r) => x(vsBare(mcp[m], "user tool", 1, r).p50)), "≤ 2×"],
  ["user tool calls/s, 16 clients, vs bare", "0.16–0.21×", (m) => both((r) => { const v = vsBare(mcp[m], "user tool", 16, r); return `${x(v.rate)} (${v.callsPerSecond.toFixed(0)}/s)`; }), "≥ 0.5×"],
  ["trivial sandbox run p50 / runs/s at 8 concurrent", "4.7 ms / 176 per s", (m) => `${sandbox[m].trivialP50Ms.toFixed(2)} ms / ${sandbox[m].runsPerSecond.toFixed(0)} per s`, "≤ 1 ms / ≥ 1,000 per s"],
  ["`knot:plugin.call` inside a run, vs raw undici", "+3.5 ms = 2.2×", (m) => `+${sandbox[m].loopbackOverheadMs.toFixed(2)} ms = ${x(sandbox[m].loopbackRatio)}`, "≤ 1.3×"],
  ["`bench:load` (64 clients): user tool p50", "778 ms", () => "run `npm run bench:load`", "≤ 100 ms, 0 errors"],
  [`sandbox worker RSS over ${RSS_RUNS} runs`, "103 → 385 MB (recycled)", (m) => rssText(rss[m]), "flat (±20 MB)"],
];

const header = ["path", "today (issue 13)", 'now, isolate_reuse "never"', 'now, isolate_reuse "user"', "goal"];
const table = [header, ...rows.map(([path, today, now, goal]) => [path, today, now("never"), now("user"), goal])];
const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
console.log("Issue 13 (same run for every \"now\" column; MCP ratios: 2025-11-25 / 2026-07-28)");
for (const [index, row] of table.entries()) {
  console.log(`| ${row.map((text, i) => text.padEnd(widths[i]!)).join(" | ")} |`);
  if (index === 0) console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
}
process.exit(0);
