/**
 * Where the load's CPU goes: the server process itself, its sandbox workers (live ones plus those
 * retired meanwhile, which the kernel adds to the server's reaped-children time, as it does for any
 * other child that exited, e.g. a plugin peer) and the clients (this process). Read from Linux's
 * /proc; elsewhere the figures are null and the report says so.
 */
import { cpuMsOf, reapedChildrenCpuMsOf, sandboxWorkers } from "../proc.ts";

export interface TreeCpu {
  readonly serverMs: number;
  readonly workersMs: number;
  readonly clientsMs: number;
}

export function treeCpu(serverPid: number): TreeCpu | null {
  const serverMs = cpuMsOf(serverPid);
  if (serverMs === 0) return null;
  const live = sandboxWorkers(serverPid).reduce((total, pid) => total + cpuMsOf(pid), 0);
  const { user, system } = process.cpuUsage();
  return { serverMs, workersMs: live + reapedChildrenCpuMsOf(serverPid), clientsMs: (user + system) / 1000 };
}

/** CPU per call over the load (ms), and each part's share of the machine's cores. */
export function formatCpu(before: TreeCpu | null, after: TreeCpu | null, calls: number, seconds: number, cores: number): string {
  if (before === null || after === null) return "cpu: /proc is not readable here (CPU not measured)";
  const part = (key: keyof TreeCpu) => {
    const ms = after[key] - before[key];
    return `${(ms / calls).toFixed(2)} ms/call (${(ms / 1000 / seconds).toFixed(2)} cores)`;
  };
  return `cpu during the load (${cores} cores): server ${part("serverMs")}, sandbox workers (+ exited children) ${part("workersMs")}, clients ${part("clientsMs")}`;
}

/**
 * The bound a closed loop puts on latency (Little's law): clients that call again as soon as they
 * are answered wait, on average, clients ÷ throughput, however the calls are ordered; so a mean of
 * `targetMs` needs clients ÷ targetMs calls/s, which on `cores` cores is at most cores ÷ that rate
 * of CPU per call, summed over the server, its workers and the clients sharing the machine.
 */
export function formatClosedLoop(before: TreeCpu | null, after: TreeCpu | null, calls: number, seconds: number, clients: number, cores: number, targetMs: number, measuredMeanMs: number): string {
  const rate = calls / seconds;
  const needed = (clients * 1000) / targetMs;
  const measured = before === null || after === null
    ? "not measured here"
    : `${((after.serverMs - before.serverMs + after.workersMs - before.workersMs + after.clientsMs - before.clientsMs) / calls).toFixed(2)} ms`;
  // Measured beside it: the end of the run, when fewer clients are still calling, bends the rule a little.
  return `closed loop: mean latency = ${clients} clients ÷ ${rate.toFixed(0)} calls/s = ${((clients * 1000) / rate).toFixed(0)} ms over all calls (measured: ${measuredMeanMs.toFixed(0)} ms), whatever the order of service; ` +
    `a ${targetMs} ms mean over all calls needs ≥ ${needed.toFixed(0)} calls/s = ≤ ${((cores * 1000) / needed).toFixed(2)} ms of CPU per call on ${cores} cores (this run: ${measured})`;
}
