/**
 * Why: when a worker nears its memory budget its idle isolates should give their memory to the runs
 * (isolate-homes.ts `shed`), but the memory they held mostly stays resident (glibc and V8 keep the
 * pages for reuse), so RSS is a high-water mark. Shedding whenever RSS is past the threshold would
 * empty the cache at every heartbeat once it was crossed. This gate opens past the threshold, and
 * after a shed only once RSS has climbed a step above what that shed left; as RSS falls it comes
 * back down, never under the threshold.
 */
export interface ShedGate {
  /** Whether the worker, at this RSS, should shed idle isolates now. */
  due(rssMb: number): boolean;
  /** After the beat: the RSS now, and whether isolates were shed. */
  settle(rssMb: number, shed: boolean): void;
}

export function createShedGate(thresholdMb: number): ShedGate {
  const stepMb = Math.max(8, Math.round(thresholdMb / 16));
  let openAtMb = thresholdMb;
  return {
    due: (rssMb) => rssMb > openAtMb,
    settle(rssMb, shed) {
      const next = Math.max(thresholdMb, rssMb + stepMb);
      openAtMb = shed ? next : Math.min(openAtMb, next);
    },
  };
}
