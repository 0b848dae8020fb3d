/**
 * A key path into the metadata TOML, e.g. ["tool", "knot", "mcp_tools", 1, "parameters", 0, "type"],
 * written for people as `tool.knot.mcp_tools[1].parameters[0].type`.
 */

export type PathSegment = string | number;
export type KeyPath = readonly PathSegment[];

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * Formats a path the way it would be written in TOML, with array indices in brackets.
 * @example formatKeyPath(["tool", "knot", "mcp_tools", 0, "name"]) // "tool.knot.mcp_tools[0].name"
 * @example formatKeyPath([0, "type"]) // "[0].type" (relative to an array)
 */
export function formatKeyPath(path: KeyPath): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") {
      text += `[${segment}]`;
      continue;
    }
    const key = BARE_KEY.test(segment) ? segment : JSON.stringify(segment);
    text += text === "" ? key : `.${key}`;
  }
  return text;
}

export function sameKeyPath(a: KeyPath, b: KeyPath): boolean {
  return a.length === b.length && a.every((segment, index) => segment === b[index]);
}
