/**
 * Why: a run gets a context that nothing has run in before: fresh globals and intrinsics, the
 * prelude evaluated, the worker's bindings pointing at nothing yet, no run data inside. To hide its
 * start cost the worker prepares one ahead of time. When a run takes it, `begin` points the
 * bindings at that run and hands the guest the run's data. A prepared context serves one run:
 * afterwards it is released (its isolate may serve the same user's next run, see isolate-homes.ts)
 * or disposed with its isolate.
 */
import { GLOBAL_NAMES } from "../guest/bindings.ts";
import { evaluatePrelude, type GuestGraph } from "./guest-graph.ts";
import type { GuestSources } from "./guest-sources.ts";
import { createCallback, createIsolate, type Context, type Isolate, type Reference } from "./ivm.ts";

export interface BindingFunctions {
  emit(kind: unknown, payload: unknown): string;
  call(request: unknown): string;
}

export interface FreshContext {
  readonly isolate: Isolate;
  readonly context: Context;
  readonly guest: GuestGraph;
  /** The guest's deliver(id, payload) for answers to knot:plugin calls. */
  readonly deliver: Reference;
  /** Points the bindings at the run and gives the guest the run's data (JSON). */
  begin(bindings: BindingFunctions, jobJson: string): Promise<void>;
  /** Lets go of the context (and every reference into it); the isolate stays. */
  release(): void;
}

const detached: BindingFunctions = {
  emit: () => "",
  call: () => JSON.stringify({ error: { code: "INTERNAL", message: "the run has not begun" } }),
};

export function newIsolate(memoryMb: number, onCatastrophicError: (message: string) => void): Isolate {
  return createIsolate({ memoryMb, onCatastrophicError });
}

export function disposeIsolate(isolate: Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose();
  } catch {
    // already gone
  }
}

/**
 * A new context in `isolate` with the prelude evaluated; synchronous calls (our code, in an
 * isolate no run is using: see guest-graph.ts). Throws if the isolate fails.
 */
export async function prepareContext(isolate: Isolate, sources: GuestSources): Promise<FreshContext> {
  let bindings = detached;
  const context = isolate.createContextSync();
  try {
    context.global.setSync(GLOBAL_NAMES.emit, createCallback((kind, payload) => bindings.emit(kind, payload)));
    context.global.setSync(GLOBAL_NAMES.call, createCallback((request) => bindings.call(request)));
    const guest = evaluatePrelude(isolate, context, sources);
    const namespace = guest.module("prelude.ts").namespace;
    const deliver = namespace.getSync("deliver", { reference: true });
    const beginRef = namespace.getSync("begin", { reference: true });
    let begun = false;
    let released = false;
    return {
      isolate,
      context,
      guest,
      deliver,
      async begin(runBindings, jobJson) {
        if (begun) throw new Error("a prepared context serves one run only");
        begun = true;
        bindings = runBindings;
        // Still only our code: begin() parses the run's data before any user module exists.
        const reply = beginRef.applySync(undefined, [jobJson]);
        beginRef.release();
        if (reply !== "") throw new Error("the guest refused the run's data");
      },
      release() {
        if (released) return;
        released = true;
        // Callbacks still held by the context's leftovers reach nothing any more.
        bindings = detached;
        guest.release();
        for (const reference of [deliver, beginRef, namespace]) {
          try {
            reference.release();
          } catch {
            // already released, or the isolate is gone
          }
        }
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
