/**
 * The one set of rules for what knot:tool's output functions take (progress, log, returnString,
 * returnObject, returnError), used by user tools (sandbox/guest/tool.ts) and plugin code
 * (src/plugins/knot/tool.ts), so the same call is accepted or refused alike on both sides. A
 * refusal is a coded error, TOOL_ERROR (each side builds its own: a guest Error, a KnotError).
 * Guest-safe: only captured intrinsics, no Node API.
 */
import * as I from "./intrinsics.ts";
import { safeString } from "./intrinsics.ts";

export const LOG_LEVELS: readonly string[] = ["debug", "info", "warn", "error"];
export type OutputLogLevel = "debug" | "info" | "warn" | "error";

const finite = (value: unknown): value is number => typeof value === "number" && I.NumberIsFinite(value);

/** Why `progress(done, total, message)` is refused, or null. */
export function progressProblem(done: unknown, total: unknown, message: unknown): string | null {
  if (!finite(done)) return "progress: done must be a finite number";
  if (total !== undefined && !finite(total)) return "progress: total must be a finite number";
  if (message !== undefined && typeof message !== "string") return "progress: message must be a string";
  return null;
}

/** Why `log(level, …)` is refused, or null. */
export function logLevelProblem(level: unknown): string | null {
  return typeof level === "string" && I.ArrayIncludes(LOG_LEVELS, level) ? null : 'log: level must be "debug", "info", "warn" or "error"';
}

/** A log message as text: a string as is, anything else as String() would show it. */
export const logText = (message: unknown): string => (typeof message === "string" ? message : safeString(message, ""));

/** returnString's text: a string, or a number, boolean or null as text; an object is refused (null). */
export function returnedText(text: unknown): string | null {
  if (typeof text === "object" && text !== null) return null;
  return typeof text === "string" ? text : safeString(text, "");
}
export const RETURN_STRING_REFUSED = "returnString: expected a string";

/** returnObject's JSON text, or null when JSON cannot carry the value (undefined, a function, a bigint, a cycle). */
export function returnedJson(value: unknown): string | null {
  try {
    const text = I.JSONStringify(value);
    return typeof text === "string" ? text : null;
  } catch {
    return null;
  }
}
export const notSerialisable = (what: string) => `${what}: the value is not JSON-serialisable`;

/** returnError's message: the text given, or a default when there is none. */
export function errorMessage(message: unknown): string {
  const text = typeof message === "string" ? message : message === undefined || message === null ? "" : safeString(message, "");
  return text === "" ? "the tool reported an error" : text;
}
