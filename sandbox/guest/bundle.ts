/**
 * Why: the heart of the ONE guest bundle (issue 13). The worker gets every guest module as a single
 * script (built by sandbox/host/guest-bundle.ts), compiles it once per isolate (with V8's code
 * cache) and runs it in each fresh context: one evaluation instead of fourteen module graphs. The
 * script leaves what the worker needs on one global; the worker reads it into the knot:* modules
 * and deletes it before any user code exists.
 *
 * The build's generated entry imports this file first, then calls `handOff` with each module's
 * exports as an array (in the order of `exportNames`, a JSON text the worker reads once): a
 * namespace object per module (getters, a property map built per context) cost ~90 µs of every run.
 */
import "./prelude.ts"; // first: it locks the realm down before anything else of ours runs
import { GLOBAL_NAMES } from "./bindings.ts";
import * as I from "./intrinsics.ts";
import { begin, deliver, takeFinished } from "./runtime.ts";

export function handOff(modules: Readonly<Record<string, readonly unknown[]>>, exportNames: string): void {
  I.ObjectDefineProperty(globalThis, GLOBAL_NAMES.handoff, {
    value: I.ObjectFreeze({ modules, exportNames, begin, deliver, takeFinished }),
    writable: false,
    enumerable: false,
    configurable: true,
  });
}
