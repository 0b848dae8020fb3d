/**
 * The one set of knot:tool argument rules, used by user tools (sandbox/guest/tool.ts) and by
 * plugin code (src/plugins/knot/tool.ts), so the same code reads the same arguments the same way.
 * Strict on purpose: the declared parameter schema already validated the types, so a getter only
 * forgives what JSON transports lose (an int sent as "42" or 42.0). The table is in
 * docs/user-tools.md ("Reading arguments"). Guest-safe: only captured intrinsics, no Node API.
 *
 * Each side supplies how to look an argument up (own properties only) and how to build its
 * INVALID_ARGUMENT error (a coded guest Error, a KnotError), so the rules and the messages live here.
 */
import * as I from "./intrinsics.ts";

/** Builds the side's INVALID_ARGUMENT error; `where` names the argument (`tags[2]` for an item). */
export type InvalidArgument = (message: string, where: string) => Error;
export type ArgumentLookup = (name: string) => unknown;

const NOT_READABLE: unique symbol = Symbol("not readable");
type Rule<T> = { readonly expected: string; readonly read: (value: unknown) => T | typeof NOT_READABLE };

const INT_TEXT = /^\s*[-+]?\d+\s*$/;
const FLOAT_TEXT = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

const stringRule: Rule<string> = {
  expected: "a string",
  read: (value) => (typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? I.String(value) : NOT_READABLE),
};

const intRule: Rule<number> = {
  expected: "an integer",
  read: (value) => {
    const parsed = typeof value === "string" && I.RegExpExec(INT_TEXT, value) !== null ? I.Number(value) : value;
    return typeof parsed === "number" && I.NumberIsSafeInteger(parsed) ? parsed : NOT_READABLE;
  },
};

const floatRule: Rule<number> = {
  expected: "a number",
  read: (value) => {
    const parsed = typeof value === "string" && I.RegExpExec(FLOAT_TEXT, value) !== null ? I.Number(value) : value;
    return typeof parsed === "number" && I.NumberIsFinite(parsed) ? parsed : NOT_READABLE;
  },
};

const boolRule: Rule<boolean> = {
  expected: "a boolean",
  read: (value) => (typeof value === "boolean" ? value : value === "true" ? true : value === "false" ? false : NOT_READABLE),
};

const listRule: Rule<unknown[]> = {
  expected: "a list",
  read: (value) => {
    if (!I.ArrayIsArray(value)) return NOT_READABLE;
    const copy: unknown[] = [];
    for (let index = 0; index < value.length; index += 1) I.ArrayPush(copy, value[index]);
    return copy;
  },
};

/** What a refused value looks like in a message: a (cut) JSON string, or just its type. */
function shown(value: unknown): string {
  const text = typeof value === "string" ? I.JSONStringify(value) : value === null ? "null" : I.ArrayIsArray(value) ? "a list" : typeof value;
  return text.length > 60 ? `${I.StringSlice(text, 0, 60)}…` : text;
}

/** The getters as user and plugin code import them from `knot:tool` (the fallback is checked too). */
export interface ArgumentGetters {
  getString(name: string, fallback?: string): string;
  getInt(name: string, fallback?: number): number;
  getFloat(name: string, fallback?: number): number;
  getBool(name: string, fallback?: boolean): boolean;
  getList(name: string, fallback?: unknown[]): unknown[];
  getStringList(name: string, fallback?: unknown[]): string[];
  getIntList(name: string, fallback?: unknown[]): number[];
  getFloatList(name: string, fallback?: unknown[]): number[];
  getBoolList(name: string, fallback?: unknown[]): boolean[];
}

export function createArgumentGetters(lookup: ArgumentLookup, invalid: InvalidArgument): ArgumentGetters {
  function coerce<T>(rule: Rule<T>, value: unknown, label: string, where: string): T {
    const read = rule.read(value);
    if (read === NOT_READABLE) throw invalid(`argument ${label} must be ${rule.expected}, got ${shown(value)}`, where);
    return read;
  }

  /** Absent or null → the fallback (checked by the same rule) → INVALID_ARGUMENT "is required". */
  function readOne<T>(rule: Rule<T>, name: unknown, fallback: unknown): T {
    if (typeof name !== "string" || name === "") throw invalid("an argument name must be a non-empty string", "?");
    const label = I.JSONStringify(name);
    const value = lookup(name);
    if (value !== undefined && value !== null) return coerce(rule, value, label, name);
    if (fallback !== undefined && fallback !== null) return coerce(rule, fallback, `${label} (default)`, name);
    throw invalid(`argument ${label} is required`, name);
  }

  function readList<T>(rule: Rule<T>, name: unknown, fallback: unknown): T[] {
    const list = readOne(listRule, name, fallback);
    const label = I.JSONStringify(name);
    const result: T[] = [];
    for (let index = 0; index < list.length; index += 1) {
      I.ArrayPush(result, coerce(rule, list[index], `${label}[${index}]`, `${name as string}[${index}]`));
    }
    return result;
  }

  return I.ObjectFreeze({
    getString: (name: string, fallback?: unknown) => readOne(stringRule, name, fallback),
    getInt: (name: string, fallback?: unknown) => readOne(intRule, name, fallback),
    getFloat: (name: string, fallback?: unknown) => readOne(floatRule, name, fallback),
    getBool: (name: string, fallback?: unknown) => readOne(boolRule, name, fallback),
    getList: (name: string, fallback?: unknown) => readOne(listRule, name, fallback),
    getStringList: (name: string, fallback?: unknown) => readList(stringRule, name, fallback),
    getIntList: (name: string, fallback?: unknown) => readList(intRule, name, fallback),
    getFloatList: (name: string, fallback?: unknown) => readList(floatRule, name, fallback),
    getBoolList: (name: string, fallback?: unknown) => readList(boolRule, name, fallback),
  });
}
