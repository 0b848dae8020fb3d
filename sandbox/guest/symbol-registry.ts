/**
 * Why: V8's Symbol registry (`Symbol.for`) belongs to the isolate, not the context, and is never
 * collected. With a warm isolate per user (sandbox/worker/isolate-homes.ts), what one clean run
 * registered outlived it: a probe planted 40 MB of keys, and the same user's next run — or the
 * runner of a tool the planter shared — failed an allocation its heap limit allows, and could
 * measure what was left. So each context gets its own registry: `Symbol.for` and `Symbol.keyFor`
 * behave as the language says within the run, and what they hold goes with the run's context.
 * The maps are made on first use: most runs never register a symbol, and every run pays the rest.
 */
import * as I from "./intrinsics.ts";

let byKey: Map<string, symbol> | undefined;
let keyOf: Map<symbol, string> | undefined;

const registry = {
  for(key: unknown): symbol {
    const text = I.String(key);
    byKey ??= new I.Map();
    keyOf ??= new I.Map();
    let symbol = I.MapGet(byKey, text) as symbol | undefined;
    if (symbol === undefined) {
      symbol = I.Symbol(text);
      I.MapSet(byKey, text, symbol);
      I.MapSet(keyOf, symbol, text);
    }
    return symbol;
  },
  keyFor(symbol: unknown): string | undefined {
    if (typeof symbol !== "symbol") throw new I.TypeError(`${I.safeString(symbol, "the value")} is not a symbol`);
    return keyOf === undefined ? undefined : (I.MapGet(keyOf, symbol) as string | undefined);
  },
};

export function ownSymbolRegistry(): void {
  // Plain assignments keep the originals' attributes (writable, configurable, not enumerable).
  I.Symbol.for = registry.for;
  I.Symbol.keyFor = registry.keyFor;
}
