/**
 * The pool's options: typed, defaulted, validated with precise messages (a wrong option is a
 * programming error and throws at creation, not at the first run).
 */
export interface SandboxPoolOptions {
  /** Worker processes kept running. Default 2. */
  readonly workers?: number;
  /** Runs one worker holds at the same time. Default 4. */
  readonly runsPerWorker?: number;
  /**
   * Runs one user may have dispatched at once across all workers; the rest wait in that user's
   * own queue, served round-robin with other users'. Default half the capacity (workers ×
   * runsPerWorker), at least 1, so one user's backlog always leaves room for others.
   */
  readonly userRunsInFlight?: number;
  /**
   * "user" (default): a worker keeps a warm isolate per user and tool code and gives each of those
   * runs a fresh context in it (never two users, nor two tools' code, in one isolate: see
   * sandbox/worker/home-owner.ts); "never": one new isolate per run.
   */
  readonly isolateReuse?: "user" | "never";
  /** Runs after which a user's isolate is disposed (isolateReuse "user"). Default 200. */
  readonly isolateMaxRuns?: number;
  /** An idle user isolate is disposed after this long. Default 30000. */
  readonly isolateIdleMs?: number;
  /**
   * Idle user isolates one worker keeps warm (isolateReuse "user"); past it the oldest of the user
   * with the most waiting goes (a user's only one goes last).
   * Default 4 × runsPerWorker, at most workerMemoryMb / 40: one user may have several runs going,
   * each in its own isolate, and a miss costs a new isolate (~4 ms of CPU); each kept isolate holds
   * its heap, ~10–20 MB (the garbage of its past contexts until V8 collects it), so by default
   * they take half the worker's memory budget at most, and the oldest go past isolateShedAboveMb.
   */
  readonly isolateMaxIdle?: number;
  /** Worker RSS (MB) past which its oldest idle isolates are disposed, a few per heartbeat (default ⅞ of workerMemoryMb). */
  readonly isolateShedAboveMb?: number;
  /** Resident memory budget of one worker process, in MB; over it, the worker is replaced. Default 512. */
  readonly workerMemoryMb?: number;
  /** Heartbeat period; a worker missing about 3 beats is killed and replaced. Default 1000. */
  readonly heartbeatMs?: number;
  /** Extra Node flags for the worker processes (`--no-node-snapshot` is always added). */
  readonly execArgv?: readonly string[];
  /** Grace after a run's wallMs before the pool kills the worker that holds it. Default 1500. */
  readonly deadlineGraceMs?: number;
  /** How long a cancelled run may take to stop before its worker is killed. Default 1000. */
  readonly cancelGraceMs?: number;
  /**
   * Runs after which a worker is retired gracefully: it takes no new runs, a replacement starts,
   * and it exits once its runs end. Bounds the slow growth of a long-lived V8 process. Default 2000.
   */
  readonly recycleAfterRuns?: number;
}

export interface PoolSettings {
  readonly workers: number;
  readonly runsPerWorker: number;
  readonly userRunsInFlight: number;
  readonly isolateReuse: "user" | "never";
  readonly isolateMaxRuns: number;
  readonly isolateIdleMs: number;
  readonly isolateMaxIdle: number;
  readonly isolateShedAboveMb: number;
  readonly workerMemoryMb: number;
  readonly heartbeatMs: number;
  readonly execArgv: readonly string[];
  readonly deadlineGraceMs: number;
  readonly cancelGraceMs: number;
  readonly recycleAfterRuns: number;
}

const KNOWN = new Set(["workers", "runsPerWorker", "userRunsInFlight", "isolateReuse", "isolateMaxRuns", "isolateIdleMs", "isolateMaxIdle", "isolateShedAboveMb", "workerMemoryMb", "heartbeatMs", "execArgv", "deadlineGraceMs", "cancelGraceMs", "recycleAfterRuns"]);

/** The pool's integer options and their ranges (the server config's `[sandbox]` keys check against the same). */
export const POOL_RANGES = Object.freeze({
  workers: { min: 1, max: 64 },
  runsPerWorker: { min: 1, max: 64 },
  workerMemoryMb: { min: 64, max: 65_536 },
  userRunsInFlight: { min: 1, max: 4_096 },
  isolateMaxRuns: { min: 1, max: 1_000_000 },
  isolateIdleMs: { min: 10, max: 3_600_000 },
  isolateMaxIdle: { min: 1, max: 1_024 },
  isolateShedAboveMb: { min: 1, max: 1_048_576 },
  heartbeatMs: { min: 50, max: 60_000 },
  deadlineGraceMs: { min: 100, max: 60_000 },
  cancelGraceMs: { min: 50, max: 60_000 },
  recycleAfterRuns: { min: 1, max: 1_000_000_000 },
});

function integer(options: SandboxPoolOptions, name: keyof typeof POOL_RANGES, fallback: number): number {
  const { min, max } = POOL_RANGES[name];
  const value = options[name] ?? fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new TypeError(`createSandboxPool: ${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

function isolateReuseOf(value: unknown): "user" | "never" {
  if (value === undefined) return "user";
  if (value === "user" || value === "never") return value;
  throw new TypeError(`createSandboxPool: isolateReuse must be "user" or "never", got ${JSON.stringify(value)}`);
}

/** What one idle user isolate may hold at most (its past contexts' garbage until V8 collects it: ~10 MB on average, ~17–20 MB before a collection). */
const IDLE_ISOLATE_MB = 20;

/**
 * 4 × runsPerWorker (a user with several runs in flight needs an isolate for each: under bench:load,
 * 8 users × 4, the old 2 × left a fifth of runs on a new isolate, ~20% more worker CPU per run), but
 * idle isolates take at most half the worker's memory budget even when full of garbage, and the
 * oldest go when its RSS passes `isolateShedAboveMb`: what they held is then reused by the runs.
 */
function defaultMaxIdle(runsPerWorker: number, workerMemoryMb: number): number {
  return Math.max(1, Math.min(4 * runsPerWorker, Math.floor(workerMemoryMb / 2 / IDLE_ISOLATE_MB)));
}

/** What a worker's isolate homes are told (sandbox/worker/isolate-homes.ts HomeSettings), from the pool's settings. */
export function isolateSettings(settings: PoolSettings) {
  return { reuse: settings.isolateReuse, maxRuns: settings.isolateMaxRuns, idleMs: settings.isolateIdleMs, maxIdle: settings.isolateMaxIdle, shedAboveMb: settings.isolateShedAboveMb };
}

export function resolvePoolOptions(options: SandboxPoolOptions = {}): PoolSettings {
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`createSandboxPool: unknown option ${JSON.stringify(key)}`);
  }
  const execArgv = options.execArgv ?? [];
  if (!Array.isArray(execArgv) || execArgv.some((flag) => typeof flag !== "string")) {
    throw new TypeError("createSandboxPool: execArgv must be an array of strings");
  }
  const workers = integer(options, "workers", 2);
  const runsPerWorker = integer(options, "runsPerWorker", 4);
  const workerMemoryMb = integer(options, "workerMemoryMb", 512);
  return Object.freeze({
    workers,
    runsPerWorker,
    userRunsInFlight: integer(options, "userRunsInFlight", Math.max(1, Math.floor((workers * runsPerWorker) / 2))),
    isolateReuse: isolateReuseOf(options.isolateReuse),
    isolateMaxRuns: integer(options, "isolateMaxRuns", 200),
    isolateIdleMs: integer(options, "isolateIdleMs", 30_000),
    isolateMaxIdle: integer(options, "isolateMaxIdle", defaultMaxIdle(runsPerWorker, workerMemoryMb)),
    // ⅞: idle isolates' memory is not given back to the system when they go (glibc and V8 keep the
    // pages for reuse), so RSS stays near its high-water mark (~400 of 512 MB under bench:load with
    // 16 idle per worker); the worker sheds again only when RSS climbs further (main.ts).
    isolateShedAboveMb: integer(options, "isolateShedAboveMb", Math.max(1, Math.floor((workerMemoryMb * 7) / 8))),
    workerMemoryMb,
    heartbeatMs: integer(options, "heartbeatMs", 1_000),
    // --max-semi-space-size=2: the worker's own young generation otherwise grew with its message
    // churn and its RSS climbed ~10 MB per 1,000 runs (issue 13); with it, flat (127 → 129 MB / 6,000).
    execArgv: Object.freeze(["--no-node-snapshot", "--disable-warning=ExperimentalWarning", "--max-semi-space-size=2", ...execArgv]),
    deadlineGraceMs: integer(options, "deadlineGraceMs", 1_500),
    cancelGraceMs: integer(options, "cancelGraceMs", 1_000),
    // 10,000: worker RSS stayed flat over 50,000 runs (bench/sandbox-rss.ts), and a replacement
    // worker costs ~0.25 s of CPU to start, paid on a core that runs tools.
    recycleAfterRuns: integer(options, "recycleAfterRuns", 10_000),
  });
}
