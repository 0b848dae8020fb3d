/**
 * Maps a key path in the metadata TOML back to its line in main.js, so every error can say
 * where to look. smol-toml does not report positions of parsed values, so this scans the
 * block's lines: table headers (counting `[[array]]` headers to know each element's index)
 * and `key =` lines within them.
 */
import { formatKeyPath, sameKeyPath } from "./key-path.ts";
import type { KeyPath, PathSegment } from "./key-path.ts";
import type { MetadataBlock } from "./extract-block.ts";

export interface KeyLocator {
  /**
   * The main.js line of the key, else of the closest enclosing key or table header that is
   * written in the block, else of the `// /// script` line.
   */
  lineOf(path: KeyPath): number;
}

interface LocatedEntry {
  readonly path: readonly PathSegment[];
  readonly line: number;
}

const KEY_PART = String.raw`(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')`;
const DOTTED_KEY = String.raw`${KEY_PART}(?:\s*\.\s*${KEY_PART})*`;
const ARRAY_HEADER = new RegExp(String.raw`^\s*\[\[\s*(${DOTTED_KEY})\s*\]\]\s*(?:#.*)?$`);
const TABLE_HEADER = new RegExp(String.raw`^\s*\[\s*(${DOTTED_KEY})\s*\]\s*(?:#.*)?$`);
const KEY_LINE = new RegExp(String.raw`^\s*(${DOTTED_KEY})\s*=`);
const KEY_PARTS = new RegExp(KEY_PART, "g");

/**
 * @example
 * const locator = createKeyLocator(block);   // block from extractMetadataBlock
 * locator.lineOf(["tool", "knot", "mcp_tools", 1, "parameters", 0, "type"]);  // e.g. 27
 */
export function createKeyLocator(block: MetadataBlock): KeyLocator {
  const entries = scanEntries(block);
  return {
    lineOf(path: KeyPath): number {
      for (let length = path.length; length > 0; length -= 1) {
        const prefix = path.slice(0, length);
        const entry = entries.find((candidate) => sameKeyPath(candidate.path, prefix));
        if (entry) return entry.line;
      }
      return block.openLine;
    },
  };
}

function scanEntries(block: MetadataBlock): LocatedEntry[] {
  const entries: LocatedEntry[] = [];
  const arrayCounts = new Map<string, number>();
  let section: readonly PathSegment[] = [];
  let openMultilineString: '"""' | "'''" | null = null;

  block.lines.forEach((text, index) => {
    const line = block.firstInnerLine + index;
    if (openMultilineString) {
      if (countOccurrences(text, openMultilineString) % 2 === 1) openMultilineString = null;
      return;
    }
    const arrayHeader = ARRAY_HEADER.exec(text);
    const tableHeader = arrayHeader ? null : TABLE_HEADER.exec(text);
    if (arrayHeader?.[1] !== undefined || tableHeader?.[1] !== undefined) {
      const keys = splitDottedKey((arrayHeader ?? tableHeader)?.[1] ?? "");
      section = resolveHeader(keys, arrayHeader !== null, arrayCounts);
      entries.push({ path: section, line });
      return;
    }
    const keyLine = KEY_LINE.exec(text);
    if (keyLine?.[1] !== undefined) {
      entries.push({ path: [...section, ...splitDottedKey(keyLine[1])], line });
    }
    for (const quote of ['"""', "'''"] as const) {
      if (countOccurrences(text, quote) % 2 === 1) openMultilineString = quote;
    }
  });
  return entries;
}

/** Gives a header its full path: earlier `[[arrays]]` on the way resolve to their last element. */
function resolveHeader(keys: readonly string[], isArray: boolean, arrayCounts: Map<string, number>): PathSegment[] {
  const resolved: PathSegment[] = [];
  keys.forEach((key, index) => {
    resolved.push(key);
    const arrayKey = formatKeyPath(resolved);
    const count = arrayCounts.get(arrayKey);
    if (isArray && index === keys.length - 1) {
      arrayCounts.set(arrayKey, (count ?? 0) + 1);
      resolved.push(count ?? 0);
    } else if (count !== undefined) {
      resolved.push(count - 1);
    }
  });
  return resolved;
}

function splitDottedKey(text: string): string[] {
  return (text.match(KEY_PARTS) ?? []).map(unquoteKey);
}

function unquoteKey(part: string): string {
  if (part.startsWith("'")) return part.slice(1, -1);
  if (!part.startsWith('"')) return part;
  try {
    return JSON.parse(part) as string;
  } catch {
    return part.slice(1, -1);
  }
}

function countOccurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
