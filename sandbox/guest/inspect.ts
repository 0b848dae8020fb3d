/**
 * Turns any guest value into one line of text for the log, without ever throwing: a hostile
 * getter, toJSON or toString only spoils its own text. Runs entirely inside the isolate.
 */
import * as I from "./intrinsics.ts";
import { safeString } from "./intrinsics.ts";

export function inspect(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value;
    case "undefined":
      return "undefined";
    case "function":
      return `[Function ${safeString((value as { name?: unknown }).name, "") || "(anonymous)"}]`;
    case "object":
      return value === null ? "null" : inspectObject(value);
    default:
      return safeString(value, "[value]");
  }
}

function inspectObject(value: object): string {
  try {
    if (value instanceof I.Error) {
      const { name, message } = value as Error;
      return `${safeString(name, "Error")}: ${safeString(message, "")}`;
    }
    const text = I.JSONStringify(value, bigintAsString);
    return typeof text === "string" ? text : safeString(value, "[object]");
  } catch {
    return safeString(value, "[object]");
  }
}

function bigintAsString(_key: string, item: unknown): unknown {
  return typeof item === "bigint" ? `${safeString(item, "")}n` : item;
}

export function inspectAll(values: readonly unknown[]): string {
  let line = "";
  for (let index = 0; index < values.length; index += 1) {
    line += (index === 0 ? "" : " ") + inspect(values[index]);
  }
  return line;
}
