/**
 * Finds the `// /// script` … `// ///` metadata block at the top of a plugin's main.js
 * (PEP 723 style) and returns its TOML text with the comment markers removed.
 * Only blank lines, a shebang on line 1 and ordinary comments may come before it.
 */

export interface MetadataBlock {
  /** 1-based line of `// /// script` in main.js. */
  readonly openLine: number;
  /** 1-based line in main.js of the first line inside the block (`lines[0]`). */
  readonly firstInnerLine: number;
  /** The lines inside the block, each without its leading `//` and one optional space. */
  readonly lines: readonly string[];
}

export type ExtractBlockResult =
  | { readonly ok: true; readonly block: MetadataBlock }
  | { readonly ok: false; readonly reason: string; readonly line: number };

const OPEN_MARKER = "// /// script";
const CLOSE_MARKER = "// ///";
const COMMENT_LINE = /^\s*\/\/ ?/;

/**
 * @example
 * extractMetadataBlock("#!/usr/bin/env node\n// /// script\n// [tool.knot]\n// ///\n")
 * // { ok: true, block: { openLine: 2, firstInnerLine: 3, lines: ["[tool.knot]"] } }
 */
export function extractMetadataBlock(source: string): ExtractBlockResult {
  const lines = source.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop(); // the final newline does not start a line
  const openIndex = findOpenMarker(lines);
  if (openIndex === -1) {
    const later = lines.findIndex((line) => line.trim() === OPEN_MARKER);
    if (later !== -1) {
      return { ok: false, line: later + 1, reason: "the `// /// script` metadata block must come before any code in main.js" };
    }
    return { ok: false, line: 1, reason: "no `// /// script` metadata block at the top of main.js" };
  }
  const inner: string[] = [];
  for (let index = openIndex + 1; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    if (line.trim() === CLOSE_MARKER) {
      return { ok: true, block: { openLine: openIndex + 1, firstInnerLine: openIndex + 2, lines: inner } };
    }
    if (!COMMENT_LINE.test(line)) {
      return {
        ok: false,
        line: index + 1,
        reason: `unterminated metadata block (opened at line ${openIndex + 1}): this line is not a \`//\` comment; close the block with \`// ///\``,
      };
    }
    inner.push(line.replace(COMMENT_LINE, ""));
  }
  return { ok: false, line: openIndex + 1, reason: "unterminated metadata block: `// /// script` has no closing `// ///` line" };
}

/** Index of the opening marker line, or -1 if code (or the end) comes first. */
function findOpenMarker(lines: readonly string[]): number {
  let inBlockComment = false;
  for (let index = 0; index < lines.length; index += 1) {
    const line = (lines[index] ?? "").trim();
    if (inBlockComment) {
      const end = line.indexOf("*/");
      if (end === -1) continue;
      inBlockComment = false;
      if (line.slice(end + 2).trim() === "") continue;
      return -1; // code right after the comment
    }
    if (line === OPEN_MARKER) return index;
    if (line === "" || line.startsWith("//") || (index === 0 && line.startsWith("#!"))) continue;
    if (line.startsWith("/*")) {
      const end = line.indexOf("*/", 2);
      if (end === -1) {
        inBlockComment = true;
        continue;
      }
      if (line.slice(end + 2).trim() === "") continue;
    }
    return -1;
  }
  return -1;
}
