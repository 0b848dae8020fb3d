/**
 * Small value checks shared by the manifest validators. Each one reports every problem it
 * finds through `report` (a key path and a phrase that reads after it, e.g. "is required")
 * and returns what is usable, so validation goes on and collects all problems at once.
 */
import type { KeyPath } from "./key-path.ts";

/** `problem` reads after the key path: "is required", "must be a string (got 3)", or ": …". */
export type Report = (path: KeyPath, problem: string) => void;

export type TomlTable = Record<string, unknown>;

/** A JS identifier: a named export of main.js. */
export const JS_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function isTable(value: unknown): value is TomlTable {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype;
}

/** A short human description of a TOML value for "(got …)" hints. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return "an array";
  if (value instanceof Date) return "a date";
  if (isTable(value)) return "a table";
  return typeof value;
}

/** Reports every key of `table` that is not in `allowed`: typos never pass. */
export function checkKnownKeys(table: TomlTable, allowed: readonly string[], path: KeyPath, report: Report): void {
  for (const key of Object.keys(table)) {
    if (!allowed.includes(key)) report([...path, key], `is not a known key (expected one of: ${allowed.join(", ")})`);
  }
}

export function readString(
  table: TomlTable,
  key: string,
  path: KeyPath,
  report: Report,
  rules: { readonly required?: boolean; readonly nonEmpty?: boolean; readonly pattern?: RegExp; readonly patternName?: string } = {},
): string | undefined {
  const value = table[key];
  if (value === undefined) {
    if (rules.required) report([...path, key], "is required");
    return undefined;
  }
  if (typeof value !== "string") {
    report([...path, key], `must be a string (got ${describeValue(value)})`);
    return undefined;
  }
  if (rules.nonEmpty && value.trim() === "") {
    report([...path, key], "must not be empty");
    return undefined;
  }
  if (rules.pattern && !rules.pattern.test(value)) {
    report([...path, key], `must be ${rules.patternName ?? `a string matching ${rules.pattern.source}`} (got ${describeValue(value)})`);
    return undefined;
  }
  return value;
}

export function readBool(table: TomlTable, key: string, path: KeyPath, report: Report): boolean | undefined {
  const value = table[key];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") {
    report([...path, key], `must be true or false (got ${describeValue(value)})`);
    return undefined;
  }
  return value;
}

/** The elements of an array of tables (`[[…]]`), each with its own path; absent → []. */
export function readTableArray(
  table: TomlTable,
  key: string,
  path: KeyPath,
  report: Report,
): Array<{ readonly table: TomlTable; readonly path: KeyPath }> {
  const value = table[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report([...path, key], `must be an array of tables (got ${describeValue(value)})`);
    return [];
  }
  const elements: Array<{ table: TomlTable; path: KeyPath }> = [];
  value.forEach((element: unknown, index) => {
    const elementPath = [...path, key, index];
    if (isTable(element)) elements.push({ table: element, path: elementPath });
    else report(elementPath, `must be a table (got ${describeValue(element)})`);
  });
  return elements;
}

/**
 * The strings of an array of strings; absent → []. Non-strings, strings failing `pattern` and
 * repeats are reported on their own element's path.
 */
export function readUniqueStrings(
  table: TomlTable,
  key: string,
  path: KeyPath,
  report: Report,
  rules: { readonly pattern: RegExp; readonly patternName: string },
): Array<{ readonly value: string; readonly path: KeyPath; readonly valid: boolean }> {
  const value = table[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report([...path, key], `must be an array of strings (got ${describeValue(value)})`);
    return [];
  }
  const seen = new Set<string>();
  const strings: Array<{ value: string; path: KeyPath; valid: boolean }> = [];
  value.forEach((element: unknown, index) => {
    const elementPath = [...path, key, index];
    if (typeof element !== "string") {
      report(elementPath, `must be a string (got ${describeValue(element)})`);
      return;
    }
    let valid = rules.pattern.test(element);
    if (!valid) report(elementPath, `must be ${rules.patternName} (got ${describeValue(element)})`);
    if (seen.has(element)) {
      report(elementPath, `repeats ${describeValue(element)}`);
      valid = false;
    }
    seen.add(element);
    strings.push({ value: element, path: elementPath, valid });
  });
  return strings;
}

/** The first value a TOML table can hold that JSON cannot (a date, a non-finite number), or a `__proto__` key (a literal of it sets a prototype), or null. */
export function nonJsonValue(root: unknown): string | null {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof Date) return "a date";
    if (typeof value === "number" && !Number.isFinite(value)) return String(value);
    if (typeof value === "bigint") return "an integer too large for JSON";
    if (typeof value === "object" && value !== null) {
      for (const key of Object.keys(value)) {
        if (key === "__proto__") return "a key named __proto__";
        stack.push((value as Record<string, unknown>)[key]);
      }
    }
  }
  return null;
}
