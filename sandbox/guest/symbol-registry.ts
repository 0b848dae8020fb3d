/**
 * Why: V8's Symbol registry (`Symbol.for`) belongs to the isolate, not the context, and is never
 * collected. With a warm isolate per user (sandbox/worker/isolate-homes.ts), what one clean run
 * registered outlived it: a probe planted 40 MB of keys, and the same user's next run — or the
 * runner of a tool the planter shared — failed an allocation its heap limit allows, and could
 * measure what was left. So each context gets its own registry: `Symbol.for` and `Symbol.keyFor`
 * behave as the language says within the run, and what they hold goes with the run's context.
 */
import * as I from "./intrinsics.ts";

export function ownSymbolRegistry(): void {
  const make = globalThis.Symbol;
  const byKey = new I.Map<string, symbol>();
  const keyOf = new I.Map<symbol, string>();
  const registry = {
    for(key: unknown): symbol {
      const text = I.String(key);
      let symbol = I.MapGet(byKey, text) as symbol | undefined;
      if (symbol === undefined) {
        symbol = make(text);
        I.MapSet(byKey, text, symbol);
        I.MapSet(keyOf, symbol, text);
      }
      return symbol;
    },
    keyFor(symbol: unknown): string | undefined {
      if (typeof symbol !== "symbol") throw new I.TypeError(`${I.safeString(symbol, "the value")} is not a symbol`);
      return I.MapGet(keyOf, symbol) as string | undefined;
    },
  };
  // Methods, as the originals are: writable, configurable, not enumerable; `Symbol.for.name` is "for".
  for (const name of ["for", "keyFor"] as const) {
    I.ObjectDefineProperty(make, name, { value: registry[name], writable: true, enumerable: false, configurable: true });
  }
}
