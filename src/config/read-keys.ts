/**
 * Reads a parsed TOML document against a key tree (keys.ts): first every section and key is
 * checked (unknown sections and keys are refused, so a typo never silently falls back to a
 * default; each value must have its TOML type), then each key is read or takes its default.
 * Every refusal is CONFIG_INVALID with `where` naming the key.
 */
import { invalid, isKey, type Key, type KeyTree, type ReadContext, type TomlType } from "./keys.ts";

/** Every key of a tree, in declaration order. */
export function keysOf(tree: KeyTree): Key<unknown>[] {
  return Object.values(tree).flatMap((node) => (isKey(node) ? [node] : keysOf(node)));
}

/** The config a tree declares when the file sets nothing. */
export function defaultsOf(tree: KeyTree): Record<string, unknown> {
  return build(tree, (node) => node.default);
}

export function readKeys(tree: KeyTree, doc: Record<string, unknown>, context: ReadContext): Record<string, unknown> {
  const sections = sectionsOf(tree);
  for (const [section, value] of Object.entries(doc)) {
    const declared = sections.get(section);
    if (!declared) throw invalid(section, `unknown section [${section}]`);
    if (declared !== "whole") checkSection(section, value, declared);
  }
  return build(tree, (node) => {
    const [section, name] = node.toml.split(".") as [string, string | undefined];
    const table = doc[section] as Record<string, unknown> | undefined;
    const value = name === undefined ? table : table?.[name];
    return value === undefined ? node.default : node.read(value, context);
  });
}

function build(tree: KeyTree, valueOf: (node: Key<unknown>) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, node] of Object.entries(tree)) {
    if (!isKey(node)) {
      out[field] = build(node, valueOf);
      continue;
    }
    const value = valueOf(node);
    if (value !== undefined || !node.optional) out[field] = value;
  }
  return Object.freeze(out);
}

/** Section → its keys' TOML types, or "whole" for a section read as one value. */
function sectionsOf(tree: KeyTree): Map<string, Map<string, TomlType> | "whole"> {
  const sections = new Map<string, Map<string, TomlType> | "whole">();
  for (const node of keysOf(tree)) {
    const [section, name] = node.toml.split(".") as [string, string | undefined];
    if (name === undefined) {
      sections.set(section, "whole");
      continue;
    }
    const keys = sections.get(section);
    if (keys === "whole") continue;
    if (keys) keys.set(name, node.type);
    else sections.set(section, new Map([[name, node.type]]));
  }
  return sections;
}

function checkSection(section: string, value: unknown, shape: Map<string, TomlType>): void {
  if (!isTable(value)) throw invalid(section, `[${section}] must be a table`);
  for (const [name, v] of Object.entries(value)) {
    const type = shape.get(name);
    const where = `${section}.${name}`;
    if (!type) throw invalid(where, `unknown key ${where}`);
    const ok = type === "string[]" ? Array.isArray(v) && v.every((x) => typeof x === "string")
      : type === "number" ? typeof v === "number" && Number.isFinite(v) && v >= 0 : type === "table" ? isTable(v) : typeof v === type;
    if (!ok) throw invalid(where, `${where} must be ${type === "string[]" ? "a list of strings" : `a ${type}`}`);
  }
}

export function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
