/**
 * A count of work under way (requests, sandbox runs, audit writes) that a graceful shutdown waits
 * for before it closes what that work needs.
 *
 * @example
 *   const writes = createPendingWork();
 *   const done = writes.begin();
 *   try { await append(row); } finally { done(); }
 *   await writes.idle(2_000); // true once nothing is pending, false if 2 s passed first
 */
export interface PendingWork {
  /** Marks one piece of work as started; call the answer once it ends (more calls do nothing). */
  begin(): () => void;
  readonly size: number;
  /** Resolves true once nothing is pending, or false when `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean>;
}

export function createPendingWork(): PendingWork {
  let size = 0;
  const waiters = new Set<() => void>();
  const settle = () => {
    if (size > 0) return;
    for (const wake of [...waiters]) wake();
  };
  return {
    begin() {
      size += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        size -= 1;
        settle();
      };
    },
    get size() {
      return size;
    },
    idle(timeoutMs) {
      if (size === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const finish = (idle: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(idle);
        };
        const wake = () => finish(true);
        const timer = setTimeout(() => finish(false), Math.max(0, timeoutMs));
        waiters.add(wake);
      });
    },
  };
}
