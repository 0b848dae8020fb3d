/**
 * Why: a fresh isolate costs ~3 ms (~7 ms with the prelude) while a fresh context in a warm isolate
 * costs well under one (issue 13). With `isolateReuse: "user"` an isolate is kept warm for ONE
 * user running ONE tool's code (the owner, see home-owner.ts: V8's protector cells belong to the
 * isolate, not the context), and each of those runs gets a fresh context in it (nothing
 * JS-visible carries over: globals, intrinsics and the module graph belong to the context). An
 * isolate is never shared by two users or two tools' code, serves one run at a time, and is
 * disposed after `maxRuns` runs, after any run the runner does not call clean (a limit trip,
 * pending work: see run.ts), after `idleMs`, and when more than `maxIdle` isolates wait (the
 * oldest of the owner with the most waiting goes, see retireForRoom); the oldest idle ones go when
 * the worker's resident memory passes `shedAboveMb`
 * (main.ts, a few per heartbeat). While an isolate waits it prepares its next context (with the
 * knot:* modules its earlier runs linked), so a run starts with `begin()` only.
 * With `"never"` every run gets a never-used isolate (one spare per common memory size is prepared
 * ahead) and it is disposed after that run.
 */
import type { GuestCode } from "./guest-code.ts";
import { disposeIsolate, newIsolate, prepareContext as prepareSync, type FreshContext } from "./fresh-context.ts";
import type { Isolate } from "./ivm.ts";

export type IsolateReuse = "user" | "never";

export interface HomeSettings {
  readonly reuse: IsolateReuse;
  readonly maxRuns: number;
  readonly idleMs: number;
  readonly maxIdle: number;
  /** Worker RSS (MB) past which the oldest idle isolates are let go at heartbeats (they are a cache). */
  readonly shedAboveMb: number;
}

export interface ContextLease {
  readonly fresh: FreshContext;
  /** The isolate served an earlier run (of the same user). */
  readonly reused: boolean;
  /**
   * The run has answered; release() follows shortly. Until then the user's next run waits for this
   * isolate rather than taking a new one (the worker answers before the isolate is parked).
   */
  settled(): void;
  /** The run is over: `clean` lets the isolate serve the user's next run, otherwise it is disposed. */
  release(clean: boolean): void;
}

export interface IsolateHomes {
  /** `owner`: whose warm isolate the run may take (a user and a tool's code, see home-owner.ts). */
  take(owner: string, memoryMb: number): Promise<ContextLease>;
  /** Prepares a never-used isolate + context of this size while the worker is idle. */
  warm(memoryMb: number): void;
  /** Disposes up to `max` idle isolates, oldest first (the worker is near its memory budget); returns how many went. */
  shed(max: number): number;
  readonly idleCount: number;
  close(): void;
}

interface Home {
  readonly key: string;
  readonly isolate: Isolate;
  runs: number;
  /** The knot:* modules this isolate's runs have linked: made ahead in its next context. */
  readonly expected: Set<string>;
  next: Promise<FreshContext> | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

const MAX_SPARE_SIZES = 2;

export function createIsolateHomes(code: GuestCode, settings: HomeSettings, onCatastrophicError: (message: string) => void): IsolateHomes {
  const spares = new Map<number, Promise<FreshContext>>();
  /** Idle homes by `${memoryMb}:${owner}`; Map order is the idle order (oldest first). */
  const idle = new Map<string, Home[]>();
  let idleCount = 0;
  /** Leases of settled runs not released yet, by home key: resolved at release. */
  const returning = new Map<string, Set<Promise<void>>>();
  let closed = false;
  /** Every knot:* module a run on this worker linked: made ahead in never-used isolates. */
  const everLinked = new Set<string>();
  const prepareContext = async (isolate: Isolate, expected: ReadonlySet<string>): Promise<FreshContext> => prepareSync(isolate, code, expected);

  async function prepareNew(memoryMb: number): Promise<FreshContext> {
    const isolate = newIsolate(memoryMb, onCatastrophicError);
    try {
      return await prepareContext(isolate, everLinked);
    } catch (error) {
      disposeIsolate(isolate);
      throw error;
    }
  }

  function discardSpare(spare: Promise<FreshContext> | undefined): void {
    spare?.then((fresh) => disposeIsolate(fresh.isolate), () => undefined);
  }

  function takeSpare(memoryMb: number): Promise<FreshContext> {
    const spare = spares.get(memoryMb);
    spares.delete(memoryMb);
    return spare === undefined ? prepareNew(memoryMb) : spare.catch(() => prepareNew(memoryMb));
  }

  function retire(home: Home): void {
    clearTimeout(home.idleTimer);
    discardSpare(home.next);
    home.next = undefined;
    disposeIsolate(home.isolate);
  }

  const isIdle = (home: Home): boolean => idle.get(home.key)?.includes(home) === true;

  function leaveIdle(home: Home): void {
    const list = idle.get(home.key);
    const index = list?.indexOf(home) ?? -1;
    if (list === undefined || index < 0) return;
    list.splice(index, 1);
    idleCount -= 1;
    if (list.length === 0) idle.delete(home.key);
    clearTimeout(home.idleTimer);
    home.idleTimer = undefined;
  }

  /** Disposes up to `max` idle homes, oldest first (Map order is idle order by key, and the oldest of a key is first). */
  function retireOldest(max: number): number {
    let retired = 0;
    for (let home = idle.values().next().value?.[0]; home !== undefined && retired < max; home = idle.values().next().value?.[0]) {
      leaveIdle(home);
      retire(home);
      retired += 1;
    }
    return retired;
  }

  /**
   * Makes room for `parking` among the idle homes: one goes from the key (owner and heap size) with
   * the most waiting, counting `parking` with its own key's, and of equals from the least recently
   * parked key; it is that key's oldest idle home (never `parking` itself, not idle yet). So an
   * owner's only warm isolate goes last. Retiring the oldest of all instead cost users with one
   * home theirs while others kept several: under bench:load, ~6% of runs started in a new isolate
   * (~2 ms more each: make, first context, dispose).
   */
  function retireForRoom(parking: Home): void {
    const own = idle.get(parking.key);
    let fullest: Home[] | undefined;
    for (const [key, list] of idle) if (key !== parking.key && (fullest === undefined || list.length > fullest.length)) fullest = list;
    const from = own !== undefined && own.length + 1 > (fullest?.length ?? 0) ? own : fullest;
    const home = from?.[0];
    if (home === undefined) return;
    leaveIdle(home);
    retire(home);
  }

  function park(home: Home): void {
    if (idleCount >= settings.maxIdle) retireForRoom(home);
    const list = idle.get(home.key) ?? [];
    idle.delete(home.key);
    idle.set(home.key, [...list, home]);
    idleCount += 1;
    home.idleTimer = setTimeout(() => {
      leaveIdle(home);
      retire(home);
    }, settings.idleMs);
    home.idleTimer.unref();
    // The next context is prepared while nobody waits for it.
    // Only while the home is still idle: the context is made with sync calls, and a sync call into
    // an isolate a run has taken meanwhile would wait for that run's code (and block the worker).
    setImmediate(() => {
      if (home.next !== undefined || home.isolate.isDisposed || closed || !isIdle(home)) return;
      const next = prepareContext(home.isolate, home.expected);
      next.catch(() => undefined);
      home.next = next;
    });
  }

  function lease(home: Home, fresh: FreshContext, reused: boolean): ContextLease {
    let released = false;
    let back: { promise: Promise<void>; resolve: () => void } | undefined;
    return {
      fresh,
      reused,
      settled() {
        if (released || back !== undefined || settings.reuse !== "user") return;
        let resolve!: () => void;
        back = { promise: new Promise<void>((done) => (resolve = done)), resolve };
        const waiting = returning.get(home.key) ?? new Set<Promise<void>>();
        waiting.add(back.promise);
        returning.set(home.key, waiting);
      },
      release(clean) {
        if (released) return;
        released = true;
        home.runs += 1;
        for (const specifier of fresh.guest.linked) {
          home.expected.add(specifier);
          everLinked.add(specifier);
        }
        fresh.release();
        const keep = settings.reuse === "user" && clean && !closed && !home.isolate.isDisposed && home.runs < settings.maxRuns;
        if (keep) park(home);
        else retire(home);
        if (back !== undefined) {
          const waiting = returning.get(home.key);
          waiting?.delete(back.promise);
          if (waiting?.size === 0) returning.delete(home.key);
          back.resolve();
        }
      },
    };
  }

  async function take(owner: string, memoryMb: number): Promise<ContextLease> {
    const key = `${memoryMb}:${owner}`;
    if (settings.reuse === "user") {
      const waiting = returning.get(key);
      // An answered run of this user is about to give its isolate back: wait for it (a few ms at most).
      if (!idle.has(key) && waiting !== undefined && waiting.size > 0) await Promise.race(waiting);
      const home = idle.get(key)?.[0];
      if (home !== undefined) {
        leaveIdle(home);
        const next = home.next;
        home.next = undefined;
        try {
          const fresh = await (next ?? prepareContext(home.isolate, home.expected));
          return lease(home, fresh, true);
        } catch {
          retire(home); // the isolate failed: start over with a new one
        }
      }
    }
    const fresh = await takeSpare(memoryMb);
    return lease({ key, isolate: fresh.isolate, runs: 0, expected: new Set(), next: undefined, idleTimer: undefined }, fresh, false);
  }

  return {
    take,
    warm(memoryMb) {
      if (closed || spares.has(memoryMb)) return;
      if (spares.size >= MAX_SPARE_SIZES) {
        const [oldest] = spares.keys();
        if (oldest !== undefined) {
          discardSpare(spares.get(oldest));
          spares.delete(oldest);
        }
      }
      const spare = prepareNew(memoryMb);
      spare.catch(() => spares.get(memoryMb) === spare && spares.delete(memoryMb));
      spares.set(memoryMb, spare);
    },
    // Disposing a used isolate is synchronous and costs ~7–14 ms: the caller bounds how many go at once.
    shed: retireOldest,
    get idleCount() {
      return idleCount;
    },
    close() {
      closed = true;
      for (const spare of spares.values()) discardSpare(spare);
      spares.clear();
      for (const list of idle.values()) for (const home of list) retire(home);
      idle.clear();
      idleCount = 0;
    },
  };
}
