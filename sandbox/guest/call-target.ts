/**
 * Why: the one name check the guest itself makes (a knot:plugin call's target), apart from the
 * rest of the name grammars (names.ts re-exports all of this): the guest bundle evaluates every
 * module it imports in every fresh context, and names.ts builds a dozen regular expressions the
 * guest never uses (~25 µs of every run, issue 13).
 */
import { GUEST_CAPS } from "./bindings.ts";

/** A grammar matched against the whole text (names.ts builds the others with it). */
export const whole = (source: string): RegExp => new RegExp(`^(?:${source})$`);

/** A plugin's name grammar (its folder's name): lower-case letters, digits, `_` and `-`. */
export const PLUGIN = "[a-z0-9_-]+";
/** A plugin's name, whole. */
export const PLUGIN_NAME = whole(PLUGIN);
/** What a handler's name in a URL path or a loopback call may not hold (it is one path segment). */
export const HANDLER_NAME_FORBIDDEN = /[/?&#\u0000-\u001f\u007f]/;

/**
 * Why a knot:plugin call's target cannot be addressed, or null. Checked by the guest (with its own
 * `exec`, safe from a poisoned RegExp.prototype) and again by the worker on what the guest sends.
 */
export function callTargetProblem(plugin: unknown, fn: unknown, exec: (pattern: RegExp, text: string) => unknown = (pattern, text) => pattern.exec(text)): string | null {
  if (typeof plugin !== "string" || plugin.length > GUEST_CAPS.nameChars || exec(PLUGIN_NAME, plugin) === null) return "the plugin name must match [a-z0-9_-]+";
  if (typeof fn !== "string" || fn === "" || fn === "." || fn === ".." || fn.length > GUEST_CAPS.nameChars || exec(HANDLER_NAME_FORBIDDEN, fn) !== null) {
    return "the handler name must be non-empty and contain none of / ? & #";
  }
  return null;
}
