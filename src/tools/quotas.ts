/**
 * Back-pressure for sandbox runs. Per user and per token: concurrent runs and runs per minute;
 * globally: a cap on concurrent runs with a bounded queue, so overload turns into clear refusals
 * (RATE_LIMITED with a retry-after) instead of unbounded memory growth. Counts are per instance.
 * A user's concurrency is well below the sandbox's capacity by default (4 of 2 workers × 4), and
 * runs waiting for a global slot are admitted round-robin by user (issue 10, root cause 9): one
 * user's backlog never stands in front of another user's first run. A user's sinks count on a
 * quota of their own (the user's limits, a separate count): their runs are caused by events others
 * can cause (running a shared tool tells its owner's `tool.run` sinks), so on the user's own count
 * another user could use it up; a sink refused here is retried by its dispatcher.
 */
import { KnotError } from "../errors.ts";
import type { RunEntry } from "../../sandbox/protocol.ts";
import type { Principal } from "../identity/principal.ts";

export interface QuotaSettings {
  readonly userConcurrentRuns: number;
  readonly userRunsPerMinute: number;
  readonly tokenConcurrentRuns: number;
  readonly tokenRunsPerMinute: number;
  readonly maxConcurrentRuns: number;
  readonly maxQueuedRuns: number;
  /** Tools, libs and sinks one user may keep (checked by the catalog when one is created, not here). */
  readonly userTools: number;
}

export const DEFAULT_QUOTAS: QuotaSettings = Object.freeze({
  userConcurrentRuns: 4,
  userRunsPerMinute: 600,
  tokenConcurrentRuns: 4,
  tokenRunsPerMinute: 600,
  maxConcurrentRuns: 32,
  maxQueuedRuns: 256,
  userTools: 200,
});

export interface Quotas {
  /**
   * Waits for a global slot (bounded queue) after checking the caller's own quotas; returns the
   * release. `"sink"`: a sink's run, counted on its owner's sink quota instead of the owner's own.
   */
  acquire(principal: Principal, signal?: AbortSignal, entry?: RunEntry): Promise<() => void>;
  /** `rateKeys`: the users and tokens whose run times of the last minute are remembered. */
  stats(): { running: number; queued: number; refused: number; rateKeys: number };
}

const MINUTE_MS = 60_000;
/** Every this many admissions, keys whose runs all left the minute are forgotten (amortised O(1)). */
const SWEEP_EVERY = 1_000;

export function createQuotas(settings: QuotaSettings, now: () => number = Date.now): Quotas {
  const concurrent = new Map<string, number>();
  /** Start times of the last minute per key, oldest first; `head` skips the expired ones (no copy per run). */
  const recent = new Map<string, { times: number[]; head: number }>();
  /** Waiting admissions per user; insertion order is the round-robin order (served → to the back). */
  const waiting = new Map<string, Array<() => void>>();
  let queued = 0;
  let running = 0;
  let refused = 0;
  let admitted = 0;

  /** Without this, each user and token ever seen kept its run times (up to a minute's worth) for ever. */
  const forgetIdle = (t: number) => {
    for (const [key, window] of recent) {
      const last = window.times.at(-1);
      if (last === undefined || last <= t - MINUTE_MS) recent.delete(key);
    }
  };

  const refuse = (message: string, retryAfterSeconds: number): never => {
    refused += 1;
    throw new KnotError("RATE_LIMITED", message, { retryAfterSeconds });
  };

  const checkKey = (key: string, label: string, maxConcurrent: number, perMinute: number) => {
    if ((concurrent.get(key) ?? 0) >= maxConcurrent) refuse(`${label} already has ${maxConcurrent} runs in progress; retry when one ends`, 1);
    const t = now();
    const window = recent.get(key) ?? { times: [], head: 0 };
    recent.set(key, window);
    const { times } = window;
    while (window.head < times.length && times[window.head]! <= t - MINUTE_MS) window.head += 1;
    // Drop the expired prefix once it is most of the array: amortised O(1) per run at any rate.
    if (window.head > 64 && window.head * 2 > times.length) {
      times.splice(0, window.head);
      window.head = 0;
    }
    if (times.length - window.head >= perMinute) {
      refuse(`${label} made ${perMinute} runs in the last minute`, Math.max(1, Math.ceil((times[window.head]! + MINUTE_MS - t) / 1000)));
    }
  };

  const keysOf = (principal: Principal, entry: RunEntry) => [
    {
      ...(entry === "sink" ? { key: `sinks:${principal.user.id}`, label: `the sinks of user "${principal.user.name}"` } : { key: `user:${principal.user.id}`, label: `user "${principal.user.name}"` }),
      max: settings.userConcurrentRuns,
      rate: settings.userRunsPerMinute,
    },
    ...(principal.tokenId ? [{ key: `token:${principal.tokenId}`, label: "this token", max: settings.tokenConcurrentRuns, rate: settings.tokenRunsPerMinute }] : []),
  ];

  const releaseGlobal = () => {
    const first = waiting.entries().next();
    if (first.done) {
      running -= 1;
      return;
    }
    const [userId, line] = first.value;
    waiting.delete(userId);
    if (line.length > 1) waiting.set(userId, line);
    queued -= 1;
    (line.shift() as () => void)();
  };

  const leaveQueue = (userId: string, entry: () => void): boolean => {
    const line = waiting.get(userId);
    const index = line?.indexOf(entry) ?? -1;
    if (line === undefined || index < 0) return false;
    line.splice(index, 1);
    if (line.length === 0) waiting.delete(userId);
    queued -= 1;
    return true;
  };

  return {
    async acquire(principal, signal, entry = "tool") {
      const keys = keysOf(principal, entry);
      for (const k of keys) checkKey(k.key, k.label, k.max, k.rate);
      for (const k of keys) {
        concurrent.set(k.key, (concurrent.get(k.key) ?? 0) + 1);
        recent.get(k.key)!.times.push(now());
      }
      if ((admitted += 1) % SWEEP_EVERY === 0) forgetIdle(now());
      const releaseOwn = () => {
        for (const k of keys) {
          const n = (concurrent.get(k.key) ?? 1) - 1;
          if (n <= 0) concurrent.delete(k.key);
          else concurrent.set(k.key, n);
        }
      };
      try {
        if (running < settings.maxConcurrentRuns) running += 1;
        else {
          if (queued >= settings.maxQueuedRuns) refuse("the server is at capacity; retry shortly", 1);
          const userId = principal.user.id;
          await new Promise<void>((resolve, reject) => {
            const entry = () => resolve();
            const line = waiting.get(userId) ?? [];
            line.push(entry);
            waiting.set(userId, line);
            queued += 1;
            signal?.addEventListener("abort", () => {
              if (leaveQueue(userId, entry)) reject(new KnotError("CANCELLED", "the run was cancelled while queued"));
            }, { once: true });
          });
        }
      } catch (error) {
        releaseOwn();
        throw error;
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        releaseOwn();
        releaseGlobal();
      };
    },
    stats: () => ({ running, queued, refused, rateKeys: recent.size }),
  };
}
