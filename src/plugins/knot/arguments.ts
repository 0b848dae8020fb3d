import { KnotError } from "../../errors.ts";

/**
 * Argument readers shared by `knot:tool` on the plugin side. Coercion follows knot: an int may
 * arrive as 42, 42.0 or "42"; a bool as true or "true". A value that cannot be read is an
 * INVALID_ARGUMENT naming the argument.
 */
export type Reader<T> = (value: unknown, name: string) => T;

function bad(name: string, expected: string, value: unknown): KnotError {
  return new KnotError("INVALID_ARGUMENT", `argument "${name}" must be ${expected}, got ${JSON.stringify(value) ?? typeof value}`, { where: name });
}

export const readString: Reader<string> = (value, name) => {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw bad(name, "a string", value);
};

export const readInt: Reader<number> = (value, name) => {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n === "number" && Number.isInteger(n)) return n;
  throw bad(name, "an integer", value);
};

export const readFloat: Reader<number> = (value, name) => {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n === "number" && Number.isFinite(n)) return n;
  throw bad(name, "a number", value);
};

export const readBool: Reader<boolean> = (value, name) => {
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "1" || value === 1) return true;
  if (value === "false" || value === "0" || value === 0) return false;
  throw bad(name, "a boolean", value);
};

export const readList: Reader<unknown[]> = (value, name) => {
  if (Array.isArray(value)) return [...value];
  throw bad(name, "a list", value);
};

export function readListOf<T>(reader: Reader<T>): Reader<T[]> {
  return (value, name) => readList(value, name).map((item, i) => reader(item, `${name}[${i}]`));
}
