/**
 * A deep copy of a JSON value (what JSON.parse makes), for the per-call copies of tool arguments:
 * structuredClone costs a serialisation round trip, several µs even for `{ text: "hi" }`, and a
 * call made two. Anything that is not plain JSON data (a class instance, a Map, a function, a
 * value nested deeper than MAX_JSON_DEPTH, which outside values never are) is left to
 * structuredClone, which decides as before.
 */
import { MAX_JSON_DEPTH } from "./json-depth.ts";

const NOT_PLAIN = Symbol("not plain JSON");

export function copyJson<T>(value: T): T {
  try {
    return copyPlain(value, 0) as T;
  } catch (error) {
    if (error === NOT_PLAIN) return structuredClone(value);
    throw error;
  }
}

function copyPlain(value: unknown, depth: number): unknown {
  if (value === null) return null;
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean" || type === "undefined") return value;
  if (type !== "object" || depth >= MAX_JSON_DEPTH) throw NOT_PLAIN;
  const prototype = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype) throw NOT_PLAIN;
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyPlain(value[index], depth + 1);
    return copy;
  }
  if (prototype !== Object.prototype && prototype !== null) throw NOT_PLAIN;
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const member = copyPlain(source[key], depth + 1);
    // JSON.parse makes "__proto__" an own member; an assignment would set the copy's prototype.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: member, writable: true, enumerable: true, configurable: true });
    else copy[key] = member;
  }
  return copy;
}
