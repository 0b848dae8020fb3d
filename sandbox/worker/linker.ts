/**
 * Why: the linker is the rule for what a user tool may import. Allowed: the three knot:* guest
 * modules, `plugin:<name>`, `plugin:<name>/<stem>` and `lib:<name>` (their source comes from the
 * host, which decides whether *this caller* may use them). Everything else — `fs`, `node:*`,
 * relative paths, URLs, internal guest modules — is MODULE_NOT_ALLOWED, naming the specifier.
 *
 * Speed (issue 13): the host ships the tool's whole module set with the job (`job.modules`), so the
 * graph is compiled with isolated-vm's synchronous calls (our own step: compiling runs no user
 * code) and instantiated at once; only a specifier the host did not ship costs a round trip to it.
 * Modules are cached for this run only (one linker per run, one run per isolate).
 *
 * Cost: parsing and compiling hold the worker's thread, where no run limit can interrupt them and
 * no heartbeat goes out. So a run links at most MAX_MODULE_GRAPH_CHARS of code, the linker lets the
 * event loop turn before compiling more once it has compiled YIELD_AFTER_CHARS, and the time it spends rewriting
 * (our parse: compiling is already in the isolate's CPU time) is charged to the run's CPU budget.
 */
import { MAX_MODULE_GRAPH_CHARS, MAX_MODULES_PER_RUN, type SafeError } from "../protocol.ts";
import { safeError } from "../errors.ts";
import { rewriteDynamicImports } from "./dynamic-import-rewrite.ts";
import { PUBLIC_GUEST_MODULES, releaseAll } from "./guest-code.ts";
import { GUEST_CAPS } from "../guest/bindings.ts";
import { LIB_SPECIFIER, OWNER_SEPARATOR, PLUGIN_SPECIFIER, TOOL_NAME_MAX } from "../guest/names.ts";
import type { Context, Isolate, Module } from "./ivm.ts";

/** Compiled code after which the linker lets timers (heartbeat, other runs' limits) run: ~50 ms of parsing. */
const YIELD_AFTER_CHARS = 64 * 1024;
const GRAPH_LIMIT_TEXT = `a tool and the modules it loads may hold at most ${MAX_MODULE_GRAPH_CHARS.toLocaleString("en-US")} characters of code together`;
const ALLOWED_TEXT = "a user tool may import knot:tool, knot:identity, knot:plugin, plugin:<name>, plugin:<name>/<module> and lib:<name>";

/**
 * Link turns, shared by every run on this worker: a big graph continues in a later event-loop turn,
 * one waiting run per turn. Several runs yielding at once would otherwise all continue in the same
 * turn, and the heartbeat would wait for the sum of their work.
 */
let lastTurn: Promise<void> = Promise.resolve();

function nextLinkTurn(): Promise<void> {
  const turn = lastTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  lastTurn = turn;
  return turn;
}

export interface LinkerOptions {
  readonly isolate: Isolate;
  /** A knot:* module of the run's context. */
  readonly guestModule: (specifier: string) => Module;
  /** Sources the host resolved before dispatch (null: refused for this caller). */
  readonly shipped: Readonly<Record<string, string | null>> | undefined;
  /** Asks the host for a specifier it did not ship. */
  readonly resolveSource: (specifier: string) => Promise<string | null>;
}

export interface Linker {
  /** Compiles the tool and everything it imports, then instantiates the graph in `context`. */
  link(source: string, filename: string, context: Context): Promise<Module>;
  /** The first reason a link failed, for the run's outcome. */
  readonly failure: SafeError | undefined;
  /** Milliseconds of the worker's thread spent rewriting modules (not in the isolate's CPU time). */
  readonly rewriteMs: number;
  /** Releases every module this linker compiled (the run is over). */
  release(): void;
}

/** `plugin:<name>`, `plugin:<name>/<stem>` or `lib:[<owner>__]<name>` (the shared grammars), each name within its bound. */
function importable(specifier: string): boolean {
  const cap = GUEST_CAPS.nameChars;
  if (specifier.length > 2 * cap + 8) return false;
  const plugin = PLUGIN_SPECIFIER.exec(specifier);
  if (plugin) return plugin[1]!.length <= cap && (plugin[2] ?? "").length <= cap;
  const lib = LIB_SPECIFIER.exec(specifier);
  // The grammar bounds the owner (64); the tool name has its own bound, as on the host.
  const name = lib?.[1]?.split(OWNER_SEPARATOR).at(-1);
  return name !== undefined && name.length <= TOOL_NAME_MAX;
}

function shown(specifier: string): string {
  return JSON.stringify(specifier.length > 200 ? `${specifier.slice(0, 200)}…` : specifier);
}

const MISSING_EXPORT = /^The requested module '([^']*)' does not provide an export named '(.*)'$/s;

/**
 * V8's link error for `import { X } from "plugin:y"` when the module has no export X, as the
 * tool's refusal: MODULE_NOT_ALLOWED "identifier not found: X in plugin:y" (knot's wording),
 * not an INTERNAL failure. Undefined for any other error.
 */
export function missingExportError(error: unknown): SafeError | undefined {
  const match = error instanceof Error ? MISSING_EXPORT.exec(error.message) : null;
  if (!match) return undefined;
  const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
  return safeError("MODULE_NOT_ALLOWED", `identifier not found: ${clip(match[2]!)} in ${clip(match[1]!)}`);
}

export function createLinker(options: LinkerOptions): Linker {
  const bySpecifier = new Map<string, Module>();
  const compiled: Module[] = [];
  let failure: SafeError | undefined;
  let graphChars = 0;
  let charsSinceYield = 0;
  let rewriteMs = 0;

  function refuse(error: SafeError): never {
    failure ??= error;
    throw new Error(error.message);
  }

  /** Counts `source` against the run's graph budget; refuses the import that would go over it. */
  function admit(source: string, specifier: string | undefined): void {
    graphChars += source.length;
    if (graphChars <= MAX_MODULE_GRAPH_CHARS) return;
    refuse(safeError("MODULE_NOT_ALLOWED", specifier === undefined ? `the tool is too large: ${GRAPH_LIMIT_TEXT}` : `import ${shown(specifier)} is too large: ${GRAPH_LIMIT_TEXT}`));
  }

  function compile(source: string, filename: string): Module {
    try {
      const started = performance.now();
      const rewritten = rewriteDynamicImports(source);
      rewriteMs += performance.now() - started;
      const module = options.isolate.compileModuleSync(rewritten, { filename });
      charsSinceYield += source.length;
      compiled.push(module);
      return module;
    } catch (error) {
      if (error instanceof SyntaxError) refuse(safeError("SYNTAX_ERROR", error.message));
      throw error;
    }
  }

  function sourceOf(specifier: string): string | null | Promise<string | null> {
    const shipped = options.shipped;
    if (shipped !== undefined && Object.hasOwn(shipped, specifier)) return shipped[specifier] ?? null;
    return options.resolveSource(specifier);
  }

  /** Compiles `specifier`'s module and its imports (depth first), unless already known. */
  async function load(specifier: string): Promise<void> {
    if (PUBLIC_GUEST_MODULES.has(specifier) || bySpecifier.has(specifier)) return;
    if (!importable(specifier)) refuse(safeError("MODULE_NOT_ALLOWED", `import ${shown(specifier)} is not allowed: ${ALLOWED_TEXT}`));
    if (bySpecifier.size >= MAX_MODULES_PER_RUN) refuse(safeError("MODULE_NOT_ALLOWED", `a tool may load at most ${MAX_MODULES_PER_RUN} modules`));
    const found = sourceOf(specifier);
    const source = typeof found === "string" || found === null ? found : await found;
    if (source === null) refuse(safeError("MODULE_NOT_ALLOWED", `import ${shown(specifier)} is not available to this tool`));
    admit(source, specifier);
    await yieldIfDue();
    const module = compile(source, specifier);
    bySpecifier.set(specifier, module);
    await loadAll(module);
  }

  /** Before the next compile, lets the event loop turn if enough code was compiled since it last did (a small graph never waits). */
  async function yieldIfDue(): Promise<void> {
    if (charsSinceYield < YIELD_AFTER_CHARS) return;
    charsSinceYield = 0;
    await nextLinkTurn();
  }

  async function loadAll(module: Module): Promise<void> {
    for (const specifier of module.dependencySpecifiers) await load(specifier);
  }

  function resolve(specifier: string): Module {
    if (PUBLIC_GUEST_MODULES.has(specifier)) return options.guestModule(specifier);
    const module = bySpecifier.get(specifier);
    if (module === undefined) refuse(safeError("INTERNAL", `import ${shown(specifier)} was not linked`));
    return module;
  }

  return {
    async link(source, filename, context) {
      admit(source, undefined);
      const tool = compile(source, filename);
      await loadAll(tool);
      tool.instantiateSync(context, resolve);
      return tool;
    },
    get failure() {
      return failure;
    },
    get rewriteMs() {
      return rewriteMs;
    },
    release() {
      releaseAll(compiled.splice(0));
    },
  };
}
