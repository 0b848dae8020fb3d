/**
 * Resident memory of the server process and of its children (the sandbox workers), read from
 * Linux's /proc. Elsewhere the figures are null and the report says so.
 */
import { memoryOf, sandboxWorkers } from "../proc.ts";

export interface ProcessMemory {
  readonly pid: number;
  /** VmRSS: resident now, MB. */
  readonly rssMb: number;
  /** VmHWM: the highest resident size so far, MB. */
  readonly peakMb: number;
}

export interface TreeMemory {
  readonly server: ProcessMemory;
  readonly workers: readonly ProcessMemory[];
}

function statusOf(pid: number): ProcessMemory | null {
  const memory = memoryOf(pid);
  return memory === null ? null : { pid, ...memory };
}

export function treeMemory(pid: number): TreeMemory | null {
  const server = statusOf(pid);
  if (!server) return null;
  const workers = sandboxWorkers(pid).map(statusOf).filter((m): m is ProcessMemory => m !== null);
  return { server, workers };
}

/** The server's own view of its memory (after a full GC). */
export interface HeapFigures {
  readonly heapUsedMb: number;
  readonly heapTotalMb: number;
  readonly externalMb: number;
}

export function formatMemory(label: string, memory: TreeMemory | null, heapFigures: HeapFigures | null): string {
  if (!memory) return `${label}: /proc is not readable here (memory not measured)`;
  const workers = memory.workers.map((w) => `${w.rssMb.toFixed(0)} MB (peak ${w.peakMb.toFixed(0)})`).join(", ");
  const total = memory.server.rssMb + memory.workers.reduce((sum, w) => sum + w.rssMb, 0);
  const heap = heapFigures === null ? ""
    : `, JS heap after GC ${heapFigures.heapUsedMb.toFixed(0)} MB of ${heapFigures.heapTotalMb.toFixed(0)} held, external ${heapFigures.externalMb.toFixed(0)} MB`;
  return `${label}: server RSS ${memory.server.rssMb.toFixed(0)} MB (peak ${memory.server.peakMb.toFixed(0)})${heap}; `
    + `${memory.workers.length} sandbox workers: ${workers || "none"}; total ${total.toFixed(0)} MB`;
}
