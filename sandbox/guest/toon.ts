/**
 * The one TOON (Token-Oriented Object Notation) encoder of knot:tool returnToon(), for user tools
 * and plugin handlers alike (src/plugins/knot/tool.ts imports it; guest-safe, captured intrinsics):
 * `key: value` lines indented by two spaces, primitive arrays inline (`tags[3]: a,b,c`), arrays of
 * flat objects with the same keys as tables (`rows[2]{id,name}:` + one line per row), other arrays
 * as `- item` lists. Strings are quoted only when they would otherwise be misread.
 * The input is first normalised through JSON (toJSON applied, functions dropped), so a value that
 * JSON cannot carry (cycle, BigInt) is refused here too.
 */
import * as I from "./intrinsics.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const BARE_KEY = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const NUMBER_LIKE = /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$|^0\d+$/;
const NEEDS_QUOTES = /[:"\\[\]{}\n\r\t,]|^\s|\s$|^-|^$/;

export function encodeToon(value: unknown): string {
  const text = I.JSONStringify(value);
  if (typeof text !== "string") throw new I.TypeError("returnToon: the value is not JSON-serialisable");
  const data = I.JSONParse(text) as Json;
  const lines: string[] = [];
  if (I.ArrayIsArray(data)) arrayLines(lines, "", "", data);
  else if (isObject(data)) objectLines(lines, "", data);
  else return primitive(data);
  return I.ArrayJoin(lines, "\n");
}

function isObject(value: Json): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !I.ArrayIsArray(value);
}

function primitive(value: Json): string {
  if (value === null || typeof value === "boolean" || typeof value === "number") return I.String(value);
  if (typeof value !== "string") return "";
  const plain =
    I.RegExpExec(NEEDS_QUOTES, value) === null &&
    I.RegExpExec(NUMBER_LIKE, value) === null &&
    value !== "true" &&
    value !== "false" &&
    value !== "null";
  return plain ? value : I.JSONStringify(value);
}

function key(name: string): string {
  return I.RegExpExec(BARE_KEY, name) !== null ? name : I.JSONStringify(name);
}

function objectLines(lines: string[], indent: string, object: { [key: string]: Json }): void {
  const names = I.ObjectKeys(object);
  for (let index = 0; index < names.length; index += 1) {
    const name = names[index] as string;
    fieldLines(lines, indent, key(name), object[name] as Json);
  }
}

function fieldLines(lines: string[], indent: string, label: string, value: Json): void {
  if (I.ArrayIsArray(value)) arrayLines(lines, indent, label, value);
  else if (isObject(value)) {
    I.ArrayPush(lines, `${indent}${label}:`);
    objectLines(lines, `${indent}  `, value);
  } else I.ArrayPush(lines, `${indent}${label}: ${primitive(value)}`);
}

function arrayLines(lines: string[], indent: string, label: string, items: Json[]): void {
  const head = `${indent}${label}[${items.length}]`;
  if (items.length === 0) {
    I.ArrayPush(lines, `${head}:`);
    return;
  }
  if (allPrimitive(items)) {
    const cells: string[] = [];
    for (let index = 0; index < items.length; index += 1) I.ArrayPush(cells, primitive(items[index] as Json));
    I.ArrayPush(lines, `${head}: ${I.ArrayJoin(cells, ",")}`);
    return;
  }
  const columns = tableColumns(items);
  if (columns !== null) {
    const keys: string[] = [];
    for (let index = 0; index < columns.length; index += 1) I.ArrayPush(keys, key(columns[index] as string));
    I.ArrayPush(lines, `${head}{${I.ArrayJoin(keys, ",")}}:`);
    for (let row = 0; row < items.length; row += 1) {
      const record = items[row] as { [key: string]: Json };
      const cells: string[] = [];
      for (let index = 0; index < columns.length; index += 1) I.ArrayPush(cells, primitive(record[columns[index] as string] as Json));
      I.ArrayPush(lines, `${indent}  ${I.ArrayJoin(cells, ",")}`);
    }
    return;
  }
  I.ArrayPush(lines, `${head}:`);
  for (let index = 0; index < items.length; index += 1) itemLines(lines, `${indent}  `, items[index] as Json);
}

function itemLines(lines: string[], indent: string, item: Json): void {
  if (I.ArrayIsArray(item)) {
    const nested: string[] = [];
    arrayLines(nested, "", "", item);
    I.ArrayPush(lines, `${indent}- ${nested[0] as string}`);
    for (let index = 1; index < nested.length; index += 1) I.ArrayPush(lines, `${indent}  ${nested[index] as string}`);
  } else if (isObject(item)) {
    const nested: string[] = [];
    objectLines(nested, "", item);
    if (nested.length === 0) I.ArrayPush(lines, `${indent}-`);
    for (let index = 0; index < nested.length; index += 1) {
      I.ArrayPush(lines, `${indent}${index === 0 ? "- " : "  "}${nested[index] as string}`);
    }
  } else I.ArrayPush(lines, `${indent}- ${primitive(item)}`);
}

function allPrimitive(items: Json[]): boolean {
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index] as Json;
    if (typeof item === "object" && item !== null) return false;
  }
  return true;
}

/** The shared keys when every item is an object with the same keys and only primitive values. */
function tableColumns(items: Json[]): string[] | null {
  const first = items[0] as Json;
  if (!isObject(first)) return null;
  const columns = I.ObjectKeys(first);
  if (columns.length === 0) return null;
  for (let row = 0; row < items.length; row += 1) {
    const record = items[row] as Json;
    if (!isObject(record) || I.ObjectKeys(record).length !== columns.length) return null;
    for (let index = 0; index < columns.length; index += 1) {
      const column = columns[index] as string;
      if (!I.ObjectHasOwn(record, column)) return null;
      const cell = record[column] as Json;
      if (typeof cell === "object" && cell !== null) return null;
    }
  }
  return columns;
}
