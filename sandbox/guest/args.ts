/**
 * knot:tool's argument getters: read the caller's arguments and coerce them the way knot does
 * ("42" and 42.0 are both the int 42). A value that cannot be read as the asked type throws a
 * TypeError that names the argument. Missing (absent or null) gives the default, else the type's
 * zero value.
 */
import { I, safeString } from "./intrinsics.ts";
import { param } from "./runtime.ts";

type Coerce<T> = (value: unknown, where: string) => T;

const INT_TEXT = /^\s*[-+]?\d+\s*$/;
const FLOAT_TEXT = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const TRUE_WORDS = ["true", "1", "yes", "on"];
const FALSE_WORDS = ["false", "0", "no", "off"];

function badType(where: string, expected: string, value: unknown): TypeError {
  const shown = typeof value === "string" ? I.JSONStringify(value) : typeof value;
  return new I.TypeError(`argument ${where} must be ${expected}, got ${shown.length > 60 ? `${I.StringSlice(shown, 0, 60)}…` : shown}`);
}

export const toStringValue: Coerce<string> = (value, where) => {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return I.String(value);
  throw badType(where, "a string", value);
};

export const toIntValue: Coerce<number> = (value, where) => {
  if (typeof value === "number" && I.NumberIsSafeInteger(value)) return value;
  if (typeof value === "string" && I.RegExpExec(INT_TEXT, value) !== null) {
    const parsed = I.Number(value);
    if (I.NumberIsSafeInteger(parsed)) return parsed;
  }
  throw badType(where, "an integer", value);
};

export const toFloatValue: Coerce<number> = (value, where) => {
  if (typeof value === "number" && I.NumberIsFinite(value)) return value;
  if (typeof value === "string" && I.RegExpExec(FLOAT_TEXT, value) !== null) {
    const parsed = I.Number(value);
    if (I.NumberIsFinite(parsed)) return parsed;
  }
  throw badType(where, "a number", value);
};

export const toBoolValue: Coerce<boolean> = (value, where) => {
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === "string") {
    const word = I.StringToLowerCase(I.StringTrim(value));
    if (I.ArrayIncludes(TRUE_WORDS, word)) return true;
    if (I.ArrayIncludes(FALSE_WORDS, word)) return false;
  }
  throw badType(where, "a boolean", value);
};

/** A list: a JSON array, or a string holding a JSON array or comma-separated items. */
export const toListValue: Coerce<unknown[]> = (value, where) => {
  if (I.ArrayIsArray(value)) return copyList(value);
  if (typeof value === "string") {
    const text = I.StringTrim(value);
    if (text === "") return [];
    if (text[0] === "[") {
      try {
        const parsed: unknown = I.JSONParse(text);
        if (I.ArrayIsArray(parsed)) return parsed;
      } catch {
        // not JSON: fall through to the comma form
      }
    }
    const parts = I.StringSplit(text, ",");
    const items: unknown[] = [];
    for (let index = 0; index < parts.length; index += 1) I.ArrayPush(items, I.StringTrim(parts[index] as string));
    return items;
  }
  throw badType(where, "a list", value);
};

function copyList(list: readonly unknown[]): unknown[] {
  const copy: unknown[] = [];
  for (let index = 0; index < list.length; index += 1) I.ArrayPush(copy, list[index]);
  return copy;
}

function checkName(name: unknown): string {
  if (typeof name !== "string" || name === "") throw new I.TypeError("an argument name must be a non-empty string");
  return name;
}

/** Reads one argument: absent or null → default (checked) → zero value. */
export function readArg<T>(name: unknown, fallback: unknown, zero: T, coerce: Coerce<T>): T {
  const key = checkName(name);
  const where = I.JSONStringify(key);
  const value = param(key);
  if (value !== undefined && value !== null) return coerce(value, where);
  if (fallback !== undefined && fallback !== null) return coerce(fallback, `${where} (default)`);
  return zero;
}

/** Reads a list argument and coerces each item, naming the failing index. */
export function readListArg<T>(name: unknown, fallback: unknown, coerce: Coerce<T>): T[] {
  const list = readArg<unknown[]>(name, fallback, [], toListValue);
  const where = I.JSONStringify(safeString(name, "?"));
  const result: T[] = [];
  for (let index = 0; index < list.length; index += 1) {
    I.ArrayPush(result, coerce(list[index], `${where}[${index}]`));
  }
  return result;
}
