/**
 * The interactive blocks of a plugin page: `form` (fields posted to an `action` handler) and
 * `button` (fixed params posted to one). Why a checked, rebuilt copy: the UI renders only what
 * is here, every string as text, and an `action` is a bare handler name, resolved by the server
 * inside the page's own plugin (`POST /api/pages/:plugin/:path/actions/:action`), so a page can
 * never point a form at another plugin or at a URL.
 *
 * @example
 * { type: "form", action: "add_host", submit: "Add", fields: [
 *   { name: "host", label: "Host", type: "text", required: true },
 *   { name: "cores", type: "number", value: 4 },
 *   { name: "region", type: "select", options: ["eu", { value: "us", label: "United States" }] },
 *   { name: "pool", type: "select", data: "pools_data" },   // options from a handler of this plugin
 *   { name: "monitored", type: "checkbox", value: true },
 * ] }
 * { type: "button", label: "Restart", action: "restart", params: { host: "a" } }
 */
import { JS_IDENTIFIER } from "../plugins/manifest/checks.ts";

export const FORM_LIMITS = Object.freeze({ fields: 50, options: 500, buttonParams: 50, dataHandlers: 10 });
const FIELD_TYPES = ["text", "number", "select", "checkbox"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

export interface SelectOption { value: string; label: string }

export interface RenderedField {
  name: string;
  label: string;
  type: FieldType;
  required: boolean;
  /** Text/number/select: the initial value as text; checkbox: "true" or "false". */
  value: string;
  /** Selects only: static options, or those the `data` handler answered (filled by the page route). */
  options?: SelectOption[];
  /** Selects only: the handler of the page's plugin that answers the options. */
  data?: string;
}

export type InteractiveBlock =
  | { type: "form"; action: string; submit: string; fields: RenderedField[] }
  | { type: "button"; label: string; action: string; params: Record<string, string> };

type Text = (value: unknown) => string;

/** A bare handler name of the page's plugin: never `other/fn`, a path or a URL. */
export const isActionName = (value: unknown): value is string => typeof value === "string" && value.length <= 128 && JS_IDENTIFIER.test(value);

/** The block rebuilt from what is known, or a problem naming what is wrong. */
export function renderInteractive(block: Record<string, unknown>, asText: Text): InteractiveBlock | string {
  if (!isActionName(block.action)) return `${String(block.type)} needs action: the name of a handler of this plugin (got ${describe(block.action)})`;
  if (block.type === "button") {
    if (block.label === undefined) return "button needs a label";
    const params = block.params ?? {};
    if (!params || typeof params !== "object" || Array.isArray(params)) return "button params must be an object";
    const entries = Object.entries(params);
    if (entries.length > FORM_LIMITS.buttonParams) return `button has over ${FORM_LIMITS.buttonParams} params`;
    const bad = entries.find(([key, value]) => !FIELD_NAME.test(key) || (value !== null && typeof value === "object"));
    if (bad) return `button param ${JSON.stringify(bad[0])} must be named like a field and hold a string, number or boolean`;
    return { type: "button", label: asText(block.label), action: block.action, params: Object.fromEntries(entries.map(([k, v]) => [k, asText(v)])) };
  }
  if (!Array.isArray(block.fields)) return "form needs fields: [...]";
  if (block.fields.length > FORM_LIMITS.fields) return `form has over ${FORM_LIMITS.fields} fields`;
  const fields: RenderedField[] = [];
  const names = new Set<string>();
  for (const [i, raw] of block.fields.entries()) {
    const field = renderField(raw, asText);
    if (typeof field === "string") return `fields[${i}]: ${field}`;
    if (names.has(field.name)) return `fields[${i}]: repeats the name ${JSON.stringify(field.name)}`;
    names.add(field.name);
    fields.push(field);
  }
  return { type: "form", action: block.action, submit: block.submit === undefined ? "Submit" : asText(block.submit), fields };
}

function renderField(raw: unknown, asText: Text): RenderedField | string {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return "a field must be an object";
  const f = raw as Record<string, unknown>;
  if (typeof f.name !== "string" || !FIELD_NAME.test(f.name)) return `name must be a field name ([A-Za-z_][A-Za-z0-9_.-]*, got ${describe(f.name)})`;
  const type = f.type ?? "text";
  if (!(FIELD_TYPES as readonly unknown[]).includes(type)) return `type must be one of ${FIELD_TYPES.join(", ")} (got ${describe(type)})`;
  const field: RenderedField = {
    name: f.name, label: f.label === undefined ? f.name : asText(f.label), type: type as FieldType, required: f.required === true,
    value: type === "checkbox" ? String(f.value === true || f.value === "true") : asText(f.value),
  };
  if (type !== "select") return "options" in f || "data" in f ? "options and data belong to select fields" : field;
  if ((f.options === undefined) === (f.data === undefined)) return "a select needs options: [...] or data: \"<handler>\" (one of them)";
  if (f.data !== undefined) {
    if (!isActionName(f.data)) return `data must name a handler of this plugin (got ${describe(f.data)})`;
    return { ...field, data: f.data, options: [] };
  }
  const options = readOptions(f.options, asText);
  return typeof options === "string" ? options : { ...field, options };
}

/** Options as a page or a `data` handler gives them: strings, or `{ value, label? }`. */
export function readOptions(raw: unknown, asText: Text): SelectOption[] | string {
  if (!Array.isArray(raw)) return "options must be a list of strings or { value, label }";
  if (raw.length > FORM_LIMITS.options) return `over ${FORM_LIMITS.options} options`;
  const options: SelectOption[] = [];
  for (const option of raw) {
    if (option !== null && typeof option === "object" && !Array.isArray(option)) {
      const o = option as Record<string, unknown>;
      if (o.value === undefined) return "an option object needs a value";
      options.push({ value: asText(o.value), label: asText(o.label ?? o.value) });
    } else if (option !== null && typeof option !== "object") {
      options.push({ value: asText(option), label: asText(option) });
    } else {
      return "options must be a list of strings or { value, label }";
    }
  }
  return options;
}

function describe(value: unknown): string {
  return value === undefined ? "nothing" : typeof value === "string" ? JSON.stringify(value.slice(0, 80)) : typeof value;
}
