/**
 * Every module a piece of code asks for, found from its syntax tree (never by running it): static
 * `import`, `export … from`, and `import()`. What the sandbox may load is decided from this list,
 * so a form of import missing here would be a way around the policy; the linker in the sandbox
 * checks again at run time, which also covers `import()` with a computed specifier.
 */
import { diagnosticAt, spanOf, type Diagnostic } from "./diagnostic.ts";
import { parseModule, walkSimple, type Expression, type Node, type Program } from "./parse.ts";
import { createTextMemo, SOURCE_MEMO } from "./text-memo.ts";

export interface ImportSite {
  specifier: string;
  /** 1-based line and column of the specifier string. */
  line: number;
  column: number;
  dynamic: boolean;
  /** Where the specifier literal ends (1-based, exclusive column). */
  endLine: number;
  endColumn: number;
}

export interface ImportScan {
  imports: ImportSite[];
  /** `import()` calls whose specifier is computed: warnings (DYNAMIC_IMPORT_UNCHECKED). */
  unchecked: Diagnostic[];
}

export type ListedImports =
  | { ok: true; imports: ImportSite[]; warnings: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

/**
 * List the modules `js` imports, in source order.
 *
 * @example
 * listImports('import { user } from "knot:identity"; await import("lib:dates");')
 * // → imports: [{ specifier: "knot:identity", dynamic: false, … }, { specifier: "lib:dates", dynamic: true, … }]
 */
export function listImports(js: string): ListedImports {
  const parsed = parseModule(js);
  if (!parsed.ok) {
    const { message, line, column } = parsed.failure;
    return { ok: false, diagnostics: [{ severity: "error", code: "SYNTAX_ERROR", message, line, column }] };
  }
  const scan = scanImports(parsed.program);
  return { ok: true, imports: scan.imports, warnings: scan.unchecked };
}

const savedScans = createTextMemo<ListedImports>(SOURCE_MEMO);

/**
 * listImports of a saved source, kept for the texts seen last: every run lists its tool's and libs'
 * imports on the server's thread (the pin check, the module set), and a 256 KB lib can take most of
 * a second to parse. One kept scan serves both. Callers only read it.
 */
export function listSavedImports(js: string): ListedImports {
  return savedScans(js, () => listImports(js));
}

/** The import scan of an already parsed program. */
export function scanImports(program: Program): ImportScan {
  const imports: ImportSite[] = [];
  const unchecked: Diagnostic[] = [];
  const addStatic = (node: { source: Node & { value?: unknown } }) => {
    if (typeof node.source.value === "string") imports.push(site(node.source.value, node.source, false));
  };
  walkSimple(program, {
    ImportDeclaration: addStatic,
    ExportAllDeclaration: addStatic,
    ExportNamedDeclaration(node) {
      if (node.source) addStatic({ source: node.source });
    },
    ImportExpression(node) {
      const specifier = literalString(node.source);
      if (specifier !== null) imports.push(site(specifier, node.source, true));
      else
        unchecked.push(
          diagnosticAt(
            "warning",
            "DYNAMIC_IMPORT_UNCHECKED",
            "import() with a computed specifier cannot be checked before the run; it fails at run time unless it names a module this code may import",
            node,
          ),
        );
    },
  });
  imports.sort((a, b) => a.line - b.line || a.column - b.column);
  return { imports, unchecked };
}

/** A string literal, or a template literal without substitutions; anything else is computed. */
function literalString(node: Expression): string | null {
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  if (node.type === "TemplateLiteral" && node.expressions.length === 0) {
    return node.quasis[0]?.value.cooked ?? null;
  }
  return null;
}

function site(specifier: string, node: Node, dynamic: boolean): ImportSite {
  return { specifier, dynamic, ...spanOf(node) };
}
