/**
 * Why: acorn keeps each scope's declared names in arrays it searches with `indexOf` on every
 * declaration, so n names in one scope cost n² — a 256 KB module of short `let` names took 12 s to
 * parse, on the server's event loop (import scans, lint) and on a sandbox worker's main thread (the
 * `import()` rewrite), where no run limit applies. This plugin gives every scope name lists whose
 * `indexOf` is a map lookup; acorn's own checks, and its errors, stay exactly as they are.
 */
import { Parser } from "acorn";

/** An array of names whose `indexOf` answers the first index from a map instead of a scan. */
class NameList extends Array<string> {
  readonly #first = new Map<string, number>();

  override push(...names: string[]): number {
    for (const name of names) {
      if (!this.#first.has(name)) this.#first.set(name, this.length);
      super.push(name);
    }
    return this.length;
  }

  override indexOf(name: string): number {
    return this.#first.get(name) ?? -1;
  }
}

interface ScopeLists {
  var: string[];
  lexical: string[];
  functions: string[];
}

/** acorn's internals this plugin touches (not in its typings). */
interface ScopedParser {
  enterScope(flags: number): void;
  scopeStack: ScopeLists[];
}

function linearScopes(Base: typeof Parser): typeof Parser {
  return class extends (Base as unknown as new (...args: unknown[]) => ScopedParser) {
    override enterScope(flags: number): void {
      super.enterScope(flags);
      const scope = this.scopeStack[this.scopeStack.length - 1]!;
      scope.var = new NameList();
      scope.lexical = new NameList();
      scope.functions = new NameList();
    }
  } as unknown as typeof Parser;
}

/** acorn's Parser with linear-time scope bookkeeping: `LinearParser.parse(source, options)`. */
export const LinearParser = Parser.extend(linearScopes);
