/**
 * Why: the linker is the rule for what a user tool may import. Allowed: the three knot:* guest
 * modules, `plugin:<name>`, `plugin:<name>/<stem>` and `lib:<name>` (their source comes from the
 * host's resolveModule, which decides whether *this caller* may use them). Everything else —
 * `fs`, `node:*`, relative paths, URLs, internal guest modules — is MODULE_NOT_ALLOWED, naming the
 * specifier. Modules are cached for this run only (one linker per run, one run per isolate).
 */
import type { SafeError } from "../protocol.ts";
import { safeError } from "../errors.ts";
import { rewriteDynamicImports } from "./dynamic-import-rewrite.ts";
import { PUBLIC_GUEST_MODULES, type GuestFile } from "./guest-sources.ts";
import { GUEST_CAPS } from "../guest/bindings.ts";
import { LIB_SPECIFIER, PLUGIN_SPECIFIER } from "../guest/names.ts";
import { releaseModules } from "./guest-graph.ts";
import type { Isolate, Module } from "./ivm.ts";

const MAX_MODULES_PER_RUN = 64;
const MAX_MODULE_CHARS = 4 * 1024 * 1024;
const ALLOWED_TEXT = "a user tool may import knot:tool, knot:identity, knot:plugin, plugin:<name>, plugin:<name>/<module> and lib:<name>";

export interface LinkerOptions {
  readonly isolate: Isolate;
  readonly guestModule: (file: GuestFile) => Module;
  readonly resolveSource: (specifier: string) => Promise<string | null>;
}

export interface Linker {
  resolve(specifier: string): Promise<Module>;
  /** Compiles a module's source (dynamic imports rewritten); a syntax error becomes SYNTAX_ERROR. */
  compile(source: string, filename: string): Promise<Module>;
  /** The first reason a link failed, for the run's outcome. */
  readonly failure: SafeError | undefined;
  /** Releases every module this linker compiled (the run is over). */
  release(): void;
}

/** `plugin:<name>`, `plugin:<name>/<stem>` or `lib:<name>` (the shared grammars), each name at most GUEST_CAPS.nameChars. */
function importable(specifier: string): boolean {
  const cap = GUEST_CAPS.nameChars;
  if (specifier.length > 2 * cap + 8) return false;
  const plugin = PLUGIN_SPECIFIER.exec(specifier);
  if (plugin) return plugin[1]!.length <= cap && (plugin[2] ?? "").length <= cap;
  const lib = LIB_SPECIFIER.exec(specifier);
  return lib !== null && lib[1]!.length <= cap;
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
  const cache = new Map<string, Promise<Module>>();
  const compiled: Module[] = [];
  let failure: SafeError | undefined;

  function refuse(error: SafeError): never {
    failure ??= error;
    throw new Error(error.message);
  }

  async function compile(source: string, filename: string): Promise<Module> {
    try {
      const module = await options.isolate.compileModule(rewriteDynamicImports(source), { filename });
      compiled.push(module);
      return module;
    } catch (error) {
      if (error instanceof SyntaxError) refuse(safeError("SYNTAX_ERROR", error.message));
      throw error;
    }
  }

  async function load(specifier: string): Promise<Module> {
    const source = await options.resolveSource(specifier);
    if (source === null) refuse(safeError("MODULE_NOT_ALLOWED", `import ${shown(specifier)} is not available to this tool`));
    if (source.length > MAX_MODULE_CHARS) refuse(safeError("MODULE_NOT_ALLOWED", `import ${shown(specifier)} is too large`));
    return compile(source, specifier);
  }

  function resolve(specifier: string): Promise<Module> {
    const guestFile = Object.hasOwn(PUBLIC_GUEST_MODULES, specifier) ? PUBLIC_GUEST_MODULES[specifier] : undefined;
    if (guestFile !== undefined) return Promise.resolve(options.guestModule(guestFile));
    if (!importable(specifier)) {
      return Promise.reject(refuseNow(safeError("MODULE_NOT_ALLOWED", `import ${shown(specifier)} is not allowed: ${ALLOWED_TEXT}`)));
    }
    let pending = cache.get(specifier);
    if (pending === undefined) {
      if (cache.size >= MAX_MODULES_PER_RUN) {
        return Promise.reject(refuseNow(safeError("MODULE_NOT_ALLOWED", `a tool may load at most ${MAX_MODULES_PER_RUN} modules`)));
      }
      pending = load(specifier);
      cache.set(specifier, pending);
    }
    return pending;
  }

  function refuseNow(error: SafeError): Error {
    failure ??= error;
    return new Error(error.message);
  }

  return {
    resolve,
    compile,
    get failure() {
      return failure;
    },
    release() {
      releaseModules(compiled.splice(0));
    },
  };
}
