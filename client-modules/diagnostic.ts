/**
 * What client-modules reports about a module: positioned, coded diagnostics an editor can show.
 * client-modules sits below src/ (src → client-modules → sandbox), so it has its own small
 * vocabulary instead of KnotError; the host wraps these when it needs an error.
 */

/** The codes client-modules emits, each with its one-line meaning. */
export const DIAGNOSTIC_CODES = {
  SYNTAX_ERROR: "the module is not valid JavaScript (or TypeScript)",
  TS_UNSUPPORTED_SYNTAX: "TypeScript that needs a transform (enum, namespace, parameter property, …); only erasable types are stripped",
  MODULE_NOT_ALLOWED: "an import names a module this kind of code may not use",
  DYNAMIC_IMPORT_UNCHECKED: "import() with a computed specifier cannot be checked before the run",
  NO_ENTRY: "a user tool has neither a default export, an exported main, nor top-level code that runs",
  MODULE_NOT_FOUND: "a declared client module file could not be read",
  EXPORT_INVALID: "a declared client module entry is malformed (stem, extension, duplicate)",
  LIB_AMBIGUOUS: "a `lib:` name is shared by several people: import one by its owner-qualified name",
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/** Lines and columns are 1-based; columns count UTF-16 code units, as editors do. */
export interface Diagnostic {
  severity: "error" | "warning";
  message: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
  code: string;
}

/** A source span as acorn reports it with `locations: true` (1-based lines, 0-based columns). */
export interface AcornSpan {
  readonly loc?: { readonly start: { line: number; column: number }; readonly end: { line: number; column: number } } | null;
}

/** A 1-based range; `endColumn` is exclusive. */
export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** The 1-based span of an acorn node (line 1, column 1 when it has no location). */
export function spanOf(node: AcornSpan): Span {
  const loc = node.loc;
  if (!loc) return { line: 1, column: 1, endLine: 1, endColumn: 1 };
  return { line: loc.start.line, column: loc.start.column + 1, endLine: loc.end.line, endColumn: loc.end.column + 1 };
}

export function diagnosticAt(
  severity: Diagnostic["severity"],
  code: DiagnosticCode,
  message: string,
  node: AcornSpan,
): Diagnostic {
  return { severity, code, message, ...spanOf(node) };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}
