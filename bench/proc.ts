/**
 * What the benchmarks read from Linux's /proc about this process's children (the sandbox workers):
 * who they are, their resident memory and their CPU time. Elsewhere every reader answers nothing.
 */
import fs from "node:fs";

const TICK_MS = 10; // /proc/<pid>/stat counts CPU in clock ticks (USER_HZ = 100)

/** The direct children of `pid` (every thread's `children` file). */
export function childrenOf(pid: number): number[] {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
      const text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
      return text === "" ? [] : text.split(/\s+/).map(Number);
    });
  } catch {
    return [];
  }
}

/** The children of `parent` (this process by default) that are sandbox workers (not, say, esbuild's service). */
export function sandboxWorkers(parent = process.pid): number[] {
  return childrenOf(parent).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("sandbox/worker/main.ts");
    } catch {
      return false; // gone meanwhile
    }
  });
}

/** VmRSS and VmHWM (the peak) of `pid` in MB, or null when it is gone. */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN);
    return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

/** Fields of /proc/<pid>/stat after the command name (index 0 = field 3, "state"), or null. */
function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** User + system CPU time of `pid` in ms (0 when it is gone). */
export function cpuMsOf(pid: number): number {
  const fields = statFields(pid);
  return fields === null ? 0 : (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** User + system CPU time of `pid`'s children that have exited and been waited for, in ms. */
export function reapedChildrenCpuMsOf(pid: number): number {
  const fields = statFields(pid);
  return fields === null ? 0 : (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}
