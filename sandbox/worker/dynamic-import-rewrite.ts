/**
 * Why: isolated-vm 7.0.1 installs no host hook for dynamic `import()`, so V8 rejects every one with
 * a bare "Not supported" — nothing is ever loaded, but the error says nothing useful. Before a
 * module enters an isolate, each `import(...)` expression found by a real parse (acorn) is renamed
 * to a prelude function that rejects with MODULE_NOT_ALLOWED, naming the specifier. Code built at
 * run time (eval, new Function) is not rewritten and still gets V8's rejection: safe either way.
 * acorn enters the sandbox only here and through linear-scopes.ts (its parser, with linear scope checks).
 */
import { simple } from "acorn-walk";
import { GLOBAL_NAMES } from "../guest/bindings.ts";
import { LinearParser } from "./linear-scopes.ts";

/** Every dynamic import is `import` + optional spaces/comments + `(`; skip the parse otherwise. */
const MAYBE_DYNAMIC_IMPORT = /\bimport\s*[(/]/;

export function rewriteDynamicImports(source: string): string {
  if (!MAYBE_DYNAMIC_IMPORT.test(source)) return source;
  let starts: number[];
  try {
    const ast = LinearParser.parse(source, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true });
    starts = [];
    simple(ast, {
      ImportExpression(node) {
        starts.push(node.start);
      },
    });
  } catch {
    return source; // V8 reports the syntax error with its own position
  }
  // One pass over the source: rebuilding it per site copied it once per site (quadratic: a module
  // of 26,000 sites held the worker's thread for many seconds, and the pool killed it).
  starts.sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const start of starts) {
    parts.push(source.slice(from, start), GLOBAL_NAMES.dynamicImport);
    from = start + "import".length;
  }
  parts.push(source.slice(from));
  return parts.join("");
}
