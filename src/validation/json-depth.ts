/**
 * The one nesting-depth rule for values that come from outside: HTTP params and bodies (plugin
 * handlers, the API, and user tools' loopback calls, which arrive the same way), MCP tool
 * arguments, and tool results whose parts are stored in the audit log.
 *
 * Threat: a value nested thousands deep overflows any recursive walk of it (canonical JSON for
 * the audit hash, deep freeze, validators, SQLite's JSON functions), so the audit row of a call
 * that already ran could not be written. Guarantee: such a value is refused with INVALID_ARGUMENT
 * before any handler or run starts. The check itself is iterative, so no depth can overflow it.
 */
import { KnotError } from "../errors.ts";

/** Objects and arrays nested inside each other, the outermost counting as 1. */
export const MAX_JSON_DEPTH = 64;

/**
 * The nesting depth of a JSON-like value, counted without recursion. It stops as soon as the depth
 * passes `limit` (answering a depth over it), so a cycle cannot keep it walking.
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** Throws INVALID_ARGUMENT naming `where` when `value` nests deeper than `max` (MAX_JSON_DEPTH). */
export function assertJsonDepth(value: unknown, where: string, max = MAX_JSON_DEPTH): void {
  if (jsonDepth(value, max) > max) {
    throw new KnotError("INVALID_ARGUMENT", `${where} is nested more than ${max} levels deep`, { where });
  }
}
