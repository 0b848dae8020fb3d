/**
 * The one seam to acorn and acorn-walk. Every other file in client-modules/ reads JavaScript
 * through here, so the parser options (ES latest, module code, locations) are decided once and
 * a reader knows where the parser enters. Parsing never evaluates anything.
 */
import { recursive, simple } from "acorn-walk";
import type { SimpleVisitors } from "acorn-walk";
import type { Node, Program } from "acorn";
import { LinearParser } from "../sandbox/worker/linear-scopes.ts";

export type { Expression, Node, Pattern, Program } from "acorn";

/** A parse failure at a 1-based line and column. */
export interface ParseFailure {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

export type ParseResult =
  | { readonly ok: true; readonly program: Program }
  | { readonly ok: false; readonly failure: ParseFailure };

/** Parse `js` as an ES module (latest syntax acorn knows, top-level await allowed). */
export function parseModule(js: string): ParseResult {
  try {
    const program = LinearParser.parse(js, { ecmaVersion: "latest", sourceType: "module", locations: true }) as Program;
    return { ok: true, program };
  } catch (error) {
    return { ok: false, failure: describeParseError(error) };
  }
}

function describeParseError(error: unknown): ParseFailure {
  if (error instanceof SyntaxError) {
    const loc = (error as SyntaxError & { loc?: { line: number; column: number } }).loc;
    // acorn appends " (line:column)" to its message; the position travels separately.
    const message = error.message.replace(/ \(\d+:\d+\)$/, "");
    if (loc) return { message, line: loc.line, column: loc.column + 1 };
    return { message, line: 1, column: 1 };
  }
  throw error; // not a parse error: a bug, let it surface
}

/** Visit every node of the given types (acorn-walk `simple`). */
export function walkSimple(node: Node, visitors: SimpleVisitors<unknown>): void {
  simple(node, visitors);
}

/**
 * Whether evaluating `node` runs a call of its own: a call, `new`, tagged template or `import()`
 * outside any function or class body (those run later, if at all).
 */
export function runsCallAtEvaluation(node: Node): boolean {
  let found = false;
  const record = () => {
    found = true;
  };
  recursive(node, undefined, {
    Function: () => {},
    Class: () => {},
    CallExpression: record,
    NewExpression: record,
    TaggedTemplateExpression: record,
    ImportExpression: record,
  });
  return found;
}
