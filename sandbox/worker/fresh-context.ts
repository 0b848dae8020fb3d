/**
 * Why: a run gets a context that nothing has run in before: fresh globals and intrinsics, the guest
 * runtime evaluated (guest-code.ts), the run's entry module compiled (not linked: the tool is not
 * known yet), the worker's bindings pointing at nothing yet, no run data inside. To hide its start
 * cost the worker prepares one ahead of time. When a run takes it, `begin` points the bindings at
 * that run and hands the guest the run's data. A prepared context
 * serves one run: afterwards it is released (its isolate may serve the same user's next run, see
 * isolate-homes.ts) or disposed with its isolate.
 */
import { forgetIsolate, installBindings, instantiateGuest, releaseAll, type GuestCode, type GuestInstance } from "./guest-code.ts";
import { createIsolate, type Context, type Isolate, type Module } from "./ivm.ts";

const ENTRY_SOURCE = 'import * as tool from "knot-internal:tool";\nimport { runTool } from "knot-internal:run-tool";\nrunTool(tool);\n';

export interface BindingFunctions {
  emit(kind: unknown, payload: unknown): void;
  call(id: unknown, request: unknown): void;
}

export interface FreshContext {
  readonly isolate: Isolate;
  readonly context: Context;
  readonly guest: GuestInstance;
  /** The run's entry module (imports the tool and the runner, calls runTool), compiled, not yet linked. */
  readonly entry: Module;
  /** Points the bindings at the run and gives the guest the run's data (JSON). */
  begin(bindings: BindingFunctions, jobJson: string): void;
  /** Lets go of the context (and every reference into it); the isolate stays. */
  release(): void;
}

/** Before begin() and after release(): reports reach nobody (no guest code runs before begin). */
const detached: BindingFunctions = { emit: () => undefined, call: () => undefined };

export function newIsolate(memoryMb: number, onCatastrophicError: (message: string) => void): Isolate {
  return createIsolate({ memoryMb, onCatastrophicError });
}

export function disposeIsolate(isolate: Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose();
  } catch {
    // already gone
  }
  // After the dispose: a handle on a still-running isolate could wait for it.
  forgetIsolate(isolate);
}

/**
 * A new context in `isolate` with the guest runtime evaluated (and the `expected` knot:* modules
 * made); synchronous calls (our code, in an isolate no run is using). Throws if the isolate fails.
 */
export function prepareContext(isolate: Isolate, code: GuestCode, expected?: ReadonlySet<string>): FreshContext {
  let bindings = detached;
  const context = isolate.createContextSync();
  try {
    installBindings(context, (kind, payload) => bindings.emit(kind, payload), (id, request) => bindings.call(id, request));
    const guest = instantiateGuest(isolate, context, code, expected);
    let entry: Module;
    try {
      entry = isolate.compileModuleSync(ENTRY_SOURCE, { filename: "knot:internal/entry" });
    } catch (error) {
      guest.release();
      throw error;
    }
    let begun = false;
    let released = false;
    return {
      isolate,
      context,
      guest,
      entry,
      begin(runBindings, jobJson) {
        if (begun) throw new Error("a prepared context serves one run only");
        begun = true;
        bindings = runBindings;
        // Still only our code: begin() parses the run's data before any user module exists.
        const reply = guest.begin.applySync(undefined, [jobJson]);
        if (reply !== "") throw new Error("the guest refused the run's data");
      },
      release() {
        if (released) return;
        released = true;
        // Callbacks still held by the context's leftovers reach nothing any more.
        bindings = detached;
        guest.release();
        releaseAll([entry]);
        try {
          context.release();
        } catch {
          // the isolate is gone
        }
      },
    };
  } catch (error) {
    try {
      context.release();
    } catch {
      // the isolate is gone
    }
    throw error;
  }
}
