/**
 * Hands each run a fresh, never-used isolate and context (see fresh-context.ts). One spare per
 * common memory size is prepared ahead — the worker calls warm() when a run has ended, so the
 * preparation does not compete with a run starting — and a spare is given out once.
 */
import { prepareFreshContext, type FreshContext } from "./fresh-context.ts";
import type { GuestSources } from "./guest-sources.ts";

export interface ContextSupply {
  take(memoryMb: number): Promise<FreshContext>;
  warm(memoryMb: number): void;
  close(): void;
}

const MAX_SPARE_SIZES = 2;

export function createContextSupply(sources: GuestSources, onCatastrophicError: (message: string) => void): ContextSupply {
  const spares = new Map<number, Promise<FreshContext>>();
  let closed = false;

  const prepare = (memoryMb: number): Promise<FreshContext> => prepareFreshContext(memoryMb, sources, onCatastrophicError);

  function discard(spare: Promise<FreshContext> | undefined): void {
    spare?.then((fresh) => fresh.dispose(), () => undefined);
  }

  function warm(memoryMb: number): void {
    if (closed || spares.has(memoryMb)) return;
    if (spares.size >= MAX_SPARE_SIZES) {
      const [oldest] = spares.keys();
      if (oldest !== undefined) {
        discard(spares.get(oldest));
        spares.delete(oldest);
      }
    }
    const spare = prepare(memoryMb);
    spare.catch(() => spares.get(memoryMb) === spare && spares.delete(memoryMb));
    spares.set(memoryMb, spare);
  }

  return {
    take(memoryMb) {
      const spare = spares.get(memoryMb);
      spares.delete(memoryMb);
      return spare === undefined ? prepare(memoryMb) : spare.catch(() => prepare(memoryMb));
    },
    warm,
    close() {
      closed = true;
      for (const spare of spares.values()) discard(spare);
      spares.clear();
    },
  };
}
