/**
 * A parameter as the parameter editor's form holds it (a row), and back. The row keeps the
 * declaration it was made from: what the form cannot edit (an item type's description and enum, a
 * list's list items, an object's or a list's enum, fields added later) goes back to the server as
 * it came, as long as the type it belongs to is unchanged.
 */
import type { Parameter } from "../lib/api.ts";

type Shape = NonNullable<Parameter["items"]>;

export interface Row {
  key: number;
  /** The declaration this row was made from. */
  original: Parameter;
  name: string;
  type: Parameter["type"];
  description: string;
  required: boolean;
  secret: boolean;
  personal: boolean;
  defaultText: string;
  enumText: string;
  properties: Parameter[];
  /** A list's item type, "" for any JSON value. */
  itemType: Parameter["type"] | "";
  itemProperties: Parameter[];
  itemSecret: boolean;
  itemPersonal: boolean;
}

/** Types whose allowed values are typed as comma-separated text; a list's or object's are kept as declared. */
export const enumEditable = (type: Parameter["type"]): boolean => type !== "list" && type !== "object";

let nextKey = 1;

const enumTextOf = (p: Parameter): string => (p.enum ? p.enum.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ") : "");

export function toRow(p: Parameter): Row {
  return {
    key: nextKey++, original: p, name: p.name, type: p.type, description: p.description ?? "", required: p.required === true,
    secret: p.secret === true, personal: p.personal === true,
    defaultText: p.default === undefined ? "" : p.type === "string" ? String(p.default) : JSON.stringify(p.default),
    enumText: enumTextOf(p),
    properties: p.properties ?? [],
    itemType: p.items?.type ?? "",
    itemProperties: p.items?.properties ?? [],
    itemSecret: p.items?.secret === true,
    itemPersonal: p.items?.personal === true,
  };
}

/** Text → a value of the parameter's type, or an error message. */
export function parseValue(type: Parameter["type"], text: string): { value: unknown } | { error: string } {
  const t = text.trim();
  switch (type) {
    case "string": return { value: text };
    case "int": return /^-?\d+$/.test(t) ? { value: Number(t) } : { error: "a whole number" };
    case "float": return t !== "" && Number.isFinite(Number(t)) ? { value: Number(t) } : { error: "a number" };
    case "bool": return t === "true" || t === "false" ? { value: t === "true" } : { error: "true or false" };
    case "list": {
      try {
        const v = JSON.parse(t);
        return Array.isArray(v) ? { value: v } : { error: 'a JSON list, e.g. ["a", "b"]' };
      } catch {
        return { error: 'a JSON list, e.g. ["a", "b"]' };
      }
    }
    case "object": {
      try {
        const v = JSON.parse(t);
        return v !== null && typeof v === "object" && !Array.isArray(v) ? { value: v } : { error: 'a JSON object, e.g. {"a": 1}' };
      } catch {
        return { error: 'a JSON object, e.g. {"a": 1}' };
      }
    }
  }
}

/** The fields of `original` that belong to its type, dropped when the type changed. */
function kept<T extends Shape>(original: T | undefined, type: Parameter["type"]): Partial<T> {
  if (!original) return {};
  const { enum: enumValues, properties, items, ...rest } = original;
  if (original.type !== type) return rest as Partial<T>;
  return { ...rest, ...(enumValues ? { enum: enumValues } : {}), ...(properties ? { properties } : {}), ...(items ? { items } : {}) } as Partial<T>;
}

function itemsOf(row: Row): Shape {
  const original = row.original.type === "list" ? row.original.items : undefined;
  const type = row.itemType as Parameter["type"];
  const items: Shape = { ...kept(original, type), type, secret: row.itemSecret, personal: row.itemPersonal };
  if (type === "object" && (row.itemProperties.length > 0 || items.properties)) items.properties = row.itemProperties;
  return items;
}

export function fromRow(row: Row): { parameter: Parameter; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const { default: _default, ...rest } = kept(row.original, row.type);
  const parameter: Parameter = { ...rest, name: row.name.trim(), type: row.type, description: row.description, required: row.required, secret: row.secret, personal: row.personal };
  if (row.type === "object" && (row.properties.length > 0 || parameter.properties)) parameter.properties = row.properties;
  if (row.type === "list") {
    if (row.itemType === "") delete parameter.items;
    else parameter.items = itemsOf(row);
  }
  if (row.defaultText !== "") {
    const parsed = parseValue(row.type, row.defaultText);
    if ("error" in parsed) errors.default = `must be ${parsed.error}`;
    else parameter.default = parsed.value;
  }
  // Unchanged text keeps the declared values (a value holding a comma would not survive the split).
  if (enumEditable(row.type) && (row.type !== row.original.type || row.enumText !== enumTextOf(row.original))) {
    delete parameter.enum;
    const values = row.enumText.split(",").map((s) => s.trim()).filter((s) => s !== "").map((s) => parseValue(row.type, s));
    const bad = values.find((v) => "error" in v);
    if (bad && "error" in bad) errors.enum = `each value must be ${bad.error}`;
    else if (values.length > 0) parameter.enum = values.map((v) => (v as { value: unknown }).value);
  }
  return { parameter, errors };
}
