/**
 * Why: the guest runtime enters every fresh context before any user code, so its cost is paid per
 * run (issue 13). It arrives as ONE script (the guest bundle, built by the host): at worker start
 * it is compiled once with V8's code cache produced; each isolate compiles it once from that cache;
 * each context runs it (one script evaluation) and then gets the knot:* modules as small wrapper
 * modules that read the bundle's exports from a hand-off global, which is deleted before any user
 * module is evaluated. All calls here are synchronous: our own code, in a context where no user
 * code has run.
 */
import { safeError } from "../errors.ts";
import { GLOBAL_NAMES } from "../guest/bindings.ts";
import { createCallback, createIsolate, createWaitingCallback, type Context, type CodeCache, type Isolate, type Module, type Reference, type Script } from "./ivm.ts";

/** What user code may import by name (the rest of the guest is unreachable from user modules). */
export const PUBLIC_GUEST_MODULES: ReadonlySet<string> = new Set(["knot:tool", "knot:identity", "knot:plugin"]);
/** The runner, imported only by the worker's entry module. */
export const RUN_TOOL_MODULE = "knot-internal:run-tool";

export interface GuestCode {
  readonly bundle: string;
  readonly cachedData: CodeCache | undefined;
  /** Module specifier → the source of its wrapper module. */
  readonly wrappers: ReadonlyMap<string, string>;
}

export interface GuestInstance {
  /** The knot:* module (or the runner) instantiated in this context; made on first use while linking. */
  module(specifier: string): Module;
  /** The modules the run's linking asked for (to expect them in the next context). */
  readonly linked: ReadonlySet<string>;
  /** Linking is done and user code is about to run: the hand-off global goes, and no module is made any more. */
  seal(): void;
  /** The guest's begin(jobJson), deliver(id, payload) and takeFinished() (see guest/runtime.ts). */
  readonly begin: Reference;
  readonly deliver: Reference;
  readonly takeFinished: Reference;
  /** Lets go of every handle (they keep the context alive until the worker's GC runs). */
  release(): void;
}

const HANDOFF = `globalThis[${JSON.stringify(GLOBAL_NAMES.handoff)}]`;
const FILENAME = "knot:internal/guest";
const scripts = new WeakMap<Isolate, Script>();

/** At worker start: the code cache and each module's export names, from one scratch isolate. */
export function loadGuestCode(bundle: string): GuestCode {
  const scratch = createIsolate({ memoryMb: 32, onCatastrophicError: () => undefined });
  try {
    const script = scratch.compileScriptSync(bundle, { filename: FILENAME, produceCachedData: true });
    const context = scratch.createContextSync();
    installBindings(context, () => undefined, () => undefined);
    script.runSync(context);
    // Each module's exports arrive as an array, in the order the JSON text `exportNames` names them
    // (guest/bundle.ts); every name needs a value there, or its wrapper would export undefined.
    const { names, types } = JSON.parse(context.evalSync(
      `JSON.stringify({ names: JSON.parse(${HANDOFF}.exportNames), types: Object.fromEntries(Object.entries(${HANDOFF}.modules).map(([k, a]) => [k, Array.isArray(a) ? a.map((x) => typeof x) : null])) })`,
    ) as string) as { names: Record<string, string[]>; types: Record<string, string[] | null> };
    const misaligned = Object.keys(names).filter((k) => types[k]?.length !== names[k]!.length || types[k]!.includes("undefined"));
    if (misaligned.length > 0) throw new Error(`guest bundle: the exports of ${JSON.stringify(misaligned)} do not match their names`);
    const wrappers = new Map<string, string>();
    for (const [specifier, exports] of Object.entries(names)) {
      const bindings = exports.map((_, index) => `const e${index} = m[${index}];`).join("\n");
      const list = exports.map((name, index) => `e${index} as ${JSON.stringify(name)}`).join(", ");
      wrappers.set(specifier, `const m = ${HANDOFF}.modules[${JSON.stringify(specifier)}];\n${bindings}\nexport { ${list} };\n`);
    }
    const { cachedData } = script as Script & { cachedData?: CodeCache };
    return { bundle, cachedData, wrappers };
  } finally {
    scratch.dispose();
  }
}

/** The wait's whole work: being reached means the worker has handled every report queued before it. */
const caughtUp = (): string => "";

/**
 * The only objects the worker ever places on a guest global: its host functions, as Callbacks
 * (they copy their string arguments; the guest does not wait for them, see ivm.ts), and the wait
 * that lets the worker catch up with them (it takes nothing and does nothing). The guest runtime
 * takes them off the global at once.
 */
export function installBindings(context: Context, emit: (kind: unknown, payload: unknown) => void, call: (id: unknown, request: unknown) => void): void {
  context.global.setSync(GLOBAL_NAMES.emit, createCallback(emit));
  context.global.setSync(GLOBAL_NAMES.call, createCallback(call));
  context.global.setSync(GLOBAL_NAMES.wait, createWaitingCallback(caughtUp));
}


function scriptOf(isolate: Isolate, code: GuestCode): Script {
  let script = scripts.get(isolate);
  if (script === undefined) {
    script = isolate.compileScriptSync(code.bundle, { filename: FILENAME, ...(code.cachedData ? { cachedData: code.cachedData } : {}) });
    scripts.set(isolate, script);
  }
  return script;
}

/**
 * Made with every context: the tool's own API and the runner, which every run links. The other
 * knot:* modules (~26 µs each) are made ahead when the caller expects them (`expected`: what earlier
 * runs linked, see isolate-homes.ts), else when a tool's linking asks for one.
 */
const ALWAYS_MADE: ReadonlySet<string> = new Set(["knot:tool", RUN_TOOL_MODULE]);

/**
 * Runs the guest bundle in `context` (its bindings already on the global) and makes the knot:*
 * modules every run needs. The hand-off global stays until `seal()`, which the runner calls once
 * linking is done, before any user module is evaluated. Throws if the isolate fails.
 */
export function instantiateGuest(isolate: Isolate, context: Context, code: GuestCode, expected: ReadonlySet<string> = ALWAYS_MADE): GuestInstance {
  scriptOf(isolate, code).runSync(context);
  const modules = new Map<string, Module>();
  const handles: Array<{ release(): void }> = [];
  const linked = new Set<string>();
  let sealed = false;
  const makeModule = (specifier: string, source: string): Module => {
    const module = isolate.compileModuleSync(source, { filename: `knot:internal/${specifier.replace(/[^a-z]+/g, "-")}` });
    handles.push(module);
    module.instantiateSync(context, () => {
      throw new Error("a guest wrapper imports nothing");
    });
    module.evaluateSync();
    modules.set(specifier, module);
    return module;
  };
  try {
    for (const [specifier, source] of code.wrappers) if (ALWAYS_MADE.has(specifier) || expected.has(specifier)) makeModule(specifier, source);
    const handoff = context.global.getSync(GLOBAL_NAMES.handoff, { reference: true }) as Reference<Record<string, unknown>>;
    handles.push(handoff);
    const begin = handoff.getSync("begin", { reference: true }) as Reference;
    handles.push(begin);
    const deliver = handoff.getSync("deliver", { reference: true }) as Reference;
    handles.push(deliver);
    const takeFinished = handoff.getSync("takeFinished", { reference: true }) as Reference;
    handles.push(takeFinished);
    return {
      module(specifier) {
        const source = code.wrappers.get(specifier);
        const found = modules.get(specifier) ?? (source === undefined || sealed ? undefined : makeModule(specifier, source));
        if (found === undefined) throw safeError("INTERNAL", `guest module ${specifier} is missing`);
        linked.add(specifier);
        return found;
      },
      linked,
      seal() {
        if (sealed) return;
        sealed = true;
        context.global.deleteSync(GLOBAL_NAMES.handoff);
      },
      begin,
      deliver,
      takeFinished,
      release: () => releaseAll(handles),
    };
  } catch (error) {
    releaseAll(handles);
    throw error;
  }
}

/** Explicit release: in a kept isolate, unreleased handles pinned every past context (issue 13's memory creep). */
export function releaseAll(handles: Iterable<{ release(): void }>): void {
  for (const handle of handles) {
    try {
      handle.release();
    } catch {
      // already released, or the isolate is gone
    }
  }
}

/** Forgets an isolate's compiled bundle (the isolate is being disposed). */
export function forgetIsolate(isolate: Isolate): void {
  const script = scripts.get(isolate);
  scripts.delete(isolate);
  if (script !== undefined) releaseAll([script]);
}
