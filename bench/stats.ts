/** Percentiles and a fixed-width table, shared by the benchmarks. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function fmt(ms: number): string {
  return ms < 0.1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`;
}

export async function timed<T>(samples: number[], fn: () => Promise<T> | T): Promise<T> {
  const started = performance.now();
  const value = await fn();
  samples.push(performance.now() - started);
  return value;
}
