/**
 * TypeScript → JavaScript for code that will run in a user sandbox. Only erasable syntax is
 * accepted: Node's type stripper replaces types with whitespace, so every line and column of the
 * output is the line and column of the source, and diagnostics on the JavaScript point at the
 * TypeScript the author wrote. Nothing is transformed, so nothing is generated behind their back.
 */
import { stripTypeScriptTypes } from "node:module";
import type { Diagnostic } from "./diagnostic.ts";
import { createTextMemo, SOURCE_MEMO } from "./text-memo.ts";

export type Language = "js" | "ts";

export type PreparedSource = { ok: true; js: string } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Turn a module's source into the JavaScript the sandbox evaluates.
 *
 * @example
 * prepareSource("export const n: number = 1;", "ts", "tool.ts")
 * // → { ok: true, js: "export const n         = 1;" }
 */
/** Stripped TypeScript by source text (a saved tool or lib strips to the same JavaScript every run). */
const stripped = createTextMemo<PreparedSource>(SOURCE_MEMO);

export function prepareSource(source: string, language: Language, filename: string): PreparedSource {
  if (language === "js") return { ok: true, js: source };
  return stripped(source, () => frozen(strip(source, filename)));
}

/** A kept result is shared by every later call with the same text. */
function frozen(prepared: PreparedSource): PreparedSource {
  if (!prepared.ok) prepared.diagnostics.forEach((d) => Object.freeze(d));
  return Object.freeze(prepared);
}

function strip(source: string, filename: string): PreparedSource {
  try {
    return { ok: true, js: stripTypeScriptTypes(source, { mode: "strip" }) };
  } catch (error) {
    const diagnostic = describeStripError(error, source);
    if (diagnostic) return { ok: false, diagnostics: [diagnostic] };
    throw new Error(`type stripping of ${filename} failed unexpectedly`, { cause: error });
  }
}

const STRIP_ERROR_CODES: Record<string, Diagnostic["code"]> = {
  ERR_INVALID_TYPESCRIPT_SYNTAX: "SYNTAX_ERROR",
  ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX: "TS_UNSUPPORTED_SYNTAX",
};

/** Node's stripper (swc in WebAssembly) recurses per nesting level: deep nesting overflows its stack. */
const TOO_DEEP = /Maximum call stack size exceeded/;

function describeStripError(error: unknown, source: string): Diagnostic | null {
  if (!(error instanceof Error)) return null;
  // A tool of a few thousand nested brackets failed every save, check and run with INTERNAL (500).
  if (error instanceof RangeError || TOO_DEEP.test(error.message)) {
    return { severity: "error", code: "SYNTAX_ERROR", message: "the code is nested too deeply to compile", line: 1, column: 1 };
  }
  const code = STRIP_ERROR_CODES[(error as Error & { code?: string }).code ?? ""];
  if (!code) return null;
  const line = lineFromStack(error.stack, source);
  if (line === null) return { severity: "error", code, message: error.message, line: 1, column: 1 };
  // Node names the line only (its snippet's caret is not reliable), so the whole line is marked.
  const text = source.split(/\r\n|\r|\n/)[line - 1] ?? "";
  const indent = text.length - text.trimStart().length;
  return {
    severity: "error",
    code,
    message: error.message,
    line,
    column: indent + 1,
    endLine: line,
    endColumn: text.length + 1,
  };
}

/**
 * Node decorates the stack of a stripping error with `<sourceUrl>:<line>` and a snippet above the
 * usual `SyntaxError [ERR_…]: …` line (internal/modules/typescript, decorateErrorWithSnippet).
 * That header is not a public API, so anything unexpected yields no position.
 */
function lineFromStack(stack: string | undefined, source: string): number | null {
  const header = /^[^\n]*:(\d+)\n/.exec(stack ?? "");
  if (!header?.[1] || header[0].includes("[ERR_")) return null;
  const line = Number(header[1]);
  const lineCount = source.split(/\r\n|\r|\n/).length;
  return Number.isSafeInteger(line) && line >= 1 && line <= lineCount ? line : null;
}
