/**
 * The gate in front of a user sandbox: a module enters only if it parses and every import it
 * names is allowed by the caller's policy. A refused import is an error at the specifier's
 * position, with the policy's reason. Linting reads the syntax tree and never runs the code.
 */
import { diagnosticAt, hasErrors, type Diagnostic } from "./diagnostic.ts";
import { exportShape } from "./exported-names.ts";
import type { ImportPolicy } from "./import-policy.ts";
import { scanImports } from "./list-imports.ts";
import { parseModule, runsCallAtEvaluation, type Program } from "./parse.ts";
import { prepareSource, type Language } from "./prepare-source.ts";

export interface LintOptions {
  language: Language;
  filename: string;
  policy: ImportPolicy;
  /** User tools: warn (NO_ENTRY) when nothing would run. */
  requireEntry?: boolean;
  /** Client modules: a computed `import()` is an error instead of a warning (they must be provably self-contained). */
  strictDynamicImports?: boolean;
}

export interface LintResult {
  /** The JavaScript to evaluate, or null when there is any error. */
  js: string | null;
  diagnostics: Diagnostic[];
}

/**
 * Prepare and check a module.
 *
 * @example
 * lintModule('import fs from "node:fs";', { language: "js", filename: "t.js", policy })
 * // → { js: null, diagnostics: [{ code: "MODULE_NOT_ALLOWED", line: 1, column: 16, … }] }
 */
export function lintModule(source: string, options: LintOptions): LintResult {
  const prepared = prepareSource(source, options.language, options.filename);
  if (!prepared.ok) return { js: null, diagnostics: prepared.diagnostics };
  const parsed = parseModule(prepared.js);
  if (!parsed.ok) {
    const { message, line, column } = parsed.failure;
    return { js: null, diagnostics: [{ severity: "error", code: "SYNTAX_ERROR", message, line, column }] };
  }
  const diagnostics = [...checkImports(parsed.program, options), ...checkEntry(parsed.program, options)];
  diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
  return { js: hasErrors(diagnostics) ? null : prepared.js, diagnostics };
}

function checkImports(program: Program, options: LintOptions): Diagnostic[] {
  const scan = scanImports(program);
  const diagnostics: Diagnostic[] = [];
  for (const site of scan.imports) {
    const verdict = options.policy(site.specifier);
    if (verdict === true) continue;
    const { specifier, dynamic, ...span } = site;
    diagnostics.push({
      severity: "error",
      code: "MODULE_NOT_ALLOWED",
      message: `cannot import ${JSON.stringify(specifier)}: ${verdict}`,
      ...span,
    });
  }
  for (const warning of scan.unchecked) {
    diagnostics.push(options.strictDynamicImports ? { ...warning, severity: "error" } : warning);
  }
  return diagnostics;
}

function checkEntry(program: Program, options: LintOptions): Diagnostic[] {
  if (!options.requireEntry) return [];
  const shape = exportShape(program);
  if (shape.hasDefault || shape.names.includes("main")) return [];
  if (program.body.some((statement) => runsCallAtEvaluation(statement))) return [];
  return [
    diagnosticAt(
      "warning",
      "NO_ENTRY",
      "this tool has no entry point: export a default function (or a function named main) taking the request, or return a result from top-level code with knot:tool",
      { loc: { start: { line: 1, column: 0 }, end: { line: 1, column: 0 } } },
    ),
  ];
}
