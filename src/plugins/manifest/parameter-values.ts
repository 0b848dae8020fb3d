/**
 * Whether a declared value (a `default` or an `enum` value) fits a parameter's shape, nested
 * objects and list items included: the schema is what arguments are checked against, so a default
 * that contradicts it would be filled in unchecked.
 */
import type { ParameterShape, ParameterType } from "../manifest-types.ts";
import { isTable } from "./checks.ts";

export const TYPE_NOUNS: Record<ParameterType, string> = {
  string: "a string",
  int: "an integer",
  float: "a finite number",
  bool: "true or false",
  list: "an array",
  object: "a table (an object)",
};

export function matchesParameterType(type: ParameterType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "int":
      return typeof value === "number" && Number.isInteger(value);
    case "float":
      return typeof value === "number" && Number.isFinite(value);
    case "bool":
      return typeof value === "boolean";
    case "list":
      return Array.isArray(value);
    case "object":
      return isTable(value);
  }
}

/**
 * Why `value` does not fit `shape` (a phrase naming the nested place, e.g. `at .contact.phone:
 * must be a string`), or null when it fits. Declared members are checked; others pass, as in the schema.
 */
export function valueMismatch(shape: ParameterShape, value: unknown, at = ""): string | null {
  if (!matchesParameterType(shape.type, value)) return `${at ? `at ${at}: ` : ""}must be ${TYPE_NOUNS[shape.type]} to match type "${shape.type}"`;
  if (shape.type === "object" && shape.properties) {
    const table = value as Record<string, unknown>;
    for (const member of shape.properties) {
      const inner = Object.hasOwn(table, member.name) ? table[member.name] : undefined;
      if (inner === undefined) {
        if (member.required) return `at ${at}.${member.name}: is required by the declared properties`;
        continue;
      }
      const problem = valueMismatch(member, inner, `${at}.${member.name}`);
      if (problem) return problem;
    }
  }
  if (shape.type === "list" && shape.items) {
    for (const [i, element] of (value as unknown[]).entries()) {
      const problem = valueMismatch(shape.items, element, `${at}[${i}]`);
      if (problem) return problem;
    }
  }
  return null;
}
