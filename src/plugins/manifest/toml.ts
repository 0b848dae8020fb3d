/**
 * The one place smol-toml enters the code base (one file per outside dependency: docs/architecture.md).
 * Parse errors come back as data with the 1-based line inside the parsed text, never as a throw.
 */
import { parse, TomlError } from "smol-toml";

export type TomlParseResult =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly reason: string; readonly line: number };

export function parseTomlDocument(text: string): TomlParseResult {
  try {
    return { ok: true, value: parse(text) as Record<string, unknown> };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // smol-toml's message is "Invalid TOML document: <reason>\n\n<code block>"; keep the reason.
    const firstLine = error.message.split("\n", 1)[0] ?? "";
    const reason = firstLine.replace(/^Invalid TOML document:\s*/, "") || "invalid TOML";
    return { ok: false, reason, line: error.line };
  }
}
