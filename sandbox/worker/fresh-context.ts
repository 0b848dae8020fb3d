/**
 * Why: a run gets an isolate and a context that nothing has run in before. To hide their start
 * cost (~7 ms: isolate, context, compiling and evaluating the prelude), the worker prepares one
 * ahead of time: the prelude is evaluated, the worker's bindings point at nothing yet, and no run
 * data is inside. When a run takes it, `attach` points the bindings at that run and `begin` hands
 * the run's data to the guest. A prepared context is handed out once and disposed with its run.
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
  dispose(): void;
}

const detached: BindingFunctions = {
  emit: () => "",
  call: () => JSON.stringify({ error: { code: "INTERNAL", message: "the run has not begun" } }),
};

export async function prepareFreshContext(
  memoryMb: number,
  sources: GuestSources,
  onCatastrophicError: (message: string) => void,
): Promise<FreshContext> {
  const isolate = createIsolate({ memoryMb, onCatastrophicError });
  try {
    let bindings = detached;
    const context = await isolate.createContext();
    await context.global.set(GLOBAL_NAMES.emit, createCallback((kind, payload) => bindings.emit(kind, payload)));
    await context.global.set(GLOBAL_NAMES.call, createCallback((request) => bindings.call(request)));
    const guest = await evaluatePrelude(isolate, context, sources);
    const namespace = guest.module("prelude.ts").namespace;
    const deliver = await namespace.get("deliver", { reference: true });
    const beginRef = await namespace.get("begin", { reference: true });
    let begun = false;
    return {
      isolate,
      context,
      guest,
      deliver,
      async begin(runBindings, jobJson) {
        if (begun) throw new Error("a prepared context serves one run only");
        begun = true;
        bindings = runBindings;
        const reply = await beginRef.apply(undefined, [jobJson]);
        beginRef.release();
        if (reply !== "") throw new Error("the guest refused the run's data");
      },
      dispose() {
        if (!isolate.isDisposed) isolate.dispose();
      },
    };
  } catch (error) {
    if (!isolate.isDisposed) isolate.dispose();
    throw error;
  }
}
