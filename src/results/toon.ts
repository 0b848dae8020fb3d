/**
 * A compact TOON (Token-Oriented Object Notation) encoder for `returnToon`: indentation for
 * nesting, `key[N]: a,b` for primitive arrays, and `key[N]{f1,f2}:` tables for arrays of flat
 * objects with the same keys — the shape that saves an assistant the most tokens.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function encodeToon(value: unknown): string {
  const json = JSON.parse(JSON.stringify(value ?? null)) as Json;
  return encode(json, 0).join("\n");
}

function encode(value: Json, depth: number): string[] {
  if (Array.isArray(value)) return encodeArray("", value, depth);
  if (value !== null && typeof value === "object") return encodeObject(value, depth);
  return [indent(depth) + primitive(value)];
}

function encodeObject(object: { [key: string]: Json }, depth: number): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(object)) {
    const name = quoteKey(key);
    if (Array.isArray(value)) lines.push(...encodeArray(name, value, depth));
    else if (value !== null && typeof value === "object") {
      lines.push(`${indent(depth)}${name}:`, ...encodeObject(value, depth + 1));
    } else lines.push(`${indent(depth)}${name}: ${primitive(value)}`);
  }
  return lines;
}

function encodeArray(name: string, items: Json[], depth: number): string[] {
  const head = `${indent(depth)}${name}[${items.length}]`;
  if (items.every(isPrimitive)) return [`${head}: ${items.map(primitive).join(",")}`];
  const fields = tableFields(items);
  if (fields) {
    const rows = items.map((item) => indent(depth + 1) + fields.map((f) => primitive((item as Record<string, Json>)[f] ?? null)).join(","));
    return [`${head}{${fields.map(quoteKey).join(",")}}:`, ...rows];
  }
  const lines = [`${head}:`];
  for (const item of items) {
    const inner = encode(item, depth + 2);
    lines.push(`${indent(depth + 1)}- ${inner[0]?.trimStart() ?? ""}`, ...inner.slice(1));
  }
  return lines;
}

function tableFields(items: Json[]): string[] | null {
  const first = items[0];
  if (!first || typeof first !== "object" || Array.isArray(first)) return null;
  const fields = Object.keys(first);
  const same = items.every((item) => item !== null && typeof item === "object" && !Array.isArray(item)
    && Object.keys(item).join("\u0000") === fields.join("\u0000") && Object.values(item).every(isPrimitive));
  return same && fields.length > 0 ? fields : null;
}

function isPrimitive(value: Json): boolean {
  return value === null || typeof value !== "object";
}

function primitive(value: Json): string {
  if (typeof value === "string") return /^[^,:\n"\[\]{}#]*$/.test(value) && value.trim() === value && value !== "" && !/^(true|false|null|-?\d)/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

function quoteKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(key) ? key : JSON.stringify(key);
}

function indent(depth: number): string {
  return "  ".repeat(depth);
}
