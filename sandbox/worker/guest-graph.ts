/**
 * Compiles the guest modules into a fresh context and evaluates the prelude, before any user code.
 * Guest modules import each other by relative name ("./runtime.ts"); that resolution exists only
 * here, while the prelude is linked — a user module can never reach an internal module.
 */
import { safeError } from "../errors.ts";
import type { GuestFile, GuestSources } from "./guest-sources.ts";
import type { Context, Isolate, Module } from "./ivm.ts";

export interface GuestGraph {
  module(file: GuestFile): Module;
}

export async function evaluatePrelude(isolate: Isolate, context: Context, sources: GuestSources): Promise<GuestGraph> {
  const modules = new Map<string, Module>();
  for (const [file, code] of sources) {
    modules.set(file, await isolate.compileModule(code, { filename: `knot:internal/${file}` }));
  }
  const module = (file: string): Module => {
    const found = modules.get(file);
    if (found === undefined) throw safeError("INTERNAL", `guest module ${file} is missing`);
    return found;
  };
  const prelude = module("prelude.ts");
  await prelude.instantiate(context, (specifier) => module(specifier.startsWith("./") ? specifier.slice(2) : specifier));
  await prelude.evaluate();
  return { module };
}
