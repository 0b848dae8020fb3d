/**
 * Why: the prelude is evaluated in every fresh context before any user or plugin code exists.
 * Importing the modules below captures the intrinsics and the worker's bindings (and deletes the
 * bindings from the global); then the global is cut down: no WebAssembly (its memory escapes the
 * heap limit), no Intl (nor its ICU objects, outside it too), no SharedArrayBuffer / Atomics (shared memory and timing), no FinalizationRegistry
 * (callbacks at GC time, outside the run that made them), no resizable ArrayBuffers (their memory
 * escapes the heap limit too, see fixed-buffers.ts), a Symbol registry of the context's own (V8's
 * outlives the context, see symbol-registry.ts), locale arguments ignored (ICU's caches outlive the
 * run, see default-locale.ts), the console replaced by
 * the log, and `import(x)` rewritten by the worker to a function that always refuses.
 */
import "./intrinsics.ts";
import "./runtime.ts";
import "./tool.ts";
import "./identity.ts";
import "./plugin.ts";
import { GLOBAL_NAMES } from "./bindings.ts";
import { installConsole } from "./console.ts";
import { defaultLocaleOnly } from "./default-locale.ts";
import { fixArrayBufferLengths } from "./fixed-buffers.ts";
import { ownSymbolRegistry } from "./symbol-registry.ts";
import * as I from "./intrinsics.ts";
import { refuseDynamicImport } from "./run-tool.ts";

const globals = globalThis as unknown as Record<string, unknown>;
// FinalizationRegistry: its callbacks run whenever the GC gets round to it — with a warm isolate
// per user that could be during the user's *next* run (see sandbox/worker/isolate-homes.ts).
// Intl: its objects hold ICU memory outside the heap limit (80,000 kept Segmenters: 1.2 GB under a
// 64 MB limit); `toLocaleString` and `localeCompare` still work, in the default locale only (default-locale.ts).
for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics", "FinalizationRegistry", "Intl"]) {
  delete globals[name];
  if (name in globals) throw new I.Error(`knot sandbox: could not remove ${name}`);
}
fixArrayBufferLengths();
ownSymbolRegistry();
defaultLocaleOnly();
installConsole();
I.ObjectDefineProperty(globalThis, GLOBAL_NAMES.dynamicImport, {
  value: refuseDynamicImport,
  writable: false,
  enumerable: false,
  configurable: false,
});
