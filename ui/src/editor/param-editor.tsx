/**
 * The parameter editor: name, type, description, required, default, enum, secret/personal.
 * Defaults and enum values are typed as text and converted by the parameter's type; a value
 * that does not fit is shown next to its field and left out until it does.
 */
import { useState } from "preact/hooks";
import type { Parameter } from "../lib/api.ts";

const TYPES: Parameter["type"][] = ["string", "int", "float", "bool", "list"];

interface Row {
  key: number;
  name: string;
  type: Parameter["type"];
  description: string;
  required: boolean;
  secret: boolean;
  personal: boolean;
  defaultText: string;
  enumText: string;
}

let nextKey = 1;

function toRow(p: Parameter): Row {
  return {
    key: nextKey++, name: p.name, type: p.type, description: p.description ?? "", required: p.required === true,
    secret: p.secret === true, personal: p.personal === true,
    defaultText: p.default === undefined ? "" : p.type === "string" ? String(p.default) : JSON.stringify(p.default),
    enumText: p.enum ? p.enum.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ") : "",
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
  }
}

function fromRow(row: Row): { parameter: Parameter; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const parameter: Parameter = { name: row.name.trim(), type: row.type, description: row.description, required: row.required, secret: row.secret, personal: row.personal };
  if (row.defaultText !== "") {
    const parsed = parseValue(row.type, row.defaultText);
    if ("error" in parsed) errors.default = `must be ${parsed.error}`;
    else parameter.default = parsed.value;
  }
  if (row.enumText.trim() !== "" && row.type !== "list" && row.type !== "bool") {
    const values = row.enumText.split(",").map((s) => s.trim()).filter((s) => s !== "").map((s) => parseValue(row.type, s));
    const bad = values.find((v) => "error" in v);
    if (bad && "error" in bad) errors.enum = `each value must be ${bad.error}`;
    else parameter.enum = values.map((v) => (v as { value: unknown }).value);
  }
  return { parameter, errors };
}

export function ParamEditor({ parameters, readOnly, onChange }: { parameters: Parameter[]; readOnly: boolean; onChange(parameters: Parameter[]): void }) {
  const [rows, setRows] = useState<Row[]>(() => parameters.map(toRow));
  const update = (next: Row[]) => {
    setRows(next);
    onChange(next.map((r) => fromRow(r).parameter));
  };
  const set = (key: number, patch: Partial<Row>) => update(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const move = (index: number, delta: number) => {
    const next = [...rows];
    const [row] = next.splice(index, 1);
    next.splice(index + delta, 0, row!);
    update(next);
  };

  return (
    <div class="param-editor">
      {rows.length === 0 ? <p class="empty small">No parameters: the tool takes no arguments. Add one to generate a form field and a schema property.</p> : null}
      {rows.map((row, index) => {
        const { errors } = fromRow(row);
        const id = (field: string) => `param-${row.key}-${field}`;
        return (
          <fieldset class="param-row" key={row.key} disabled={readOnly} data-param={row.name}>
            <legend>Parameter {index + 1}{row.name ? `: ${row.name}` : ""}</legend>
            <div class="grid-2">
              <div><label for={id("name")}>Name</label><input id={id("name")} value={row.name} onInput={(e) => set(row.key, { name: (e.target as HTMLInputElement).value })} /></div>
              <div><label for={id("type")}>Type</label>
                <select id={id("type")} value={row.type} onChange={(e) => set(row.key, { type: (e.target as HTMLSelectElement).value as Parameter["type"] })}>
                  {TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
                </select></div>
            </div>
            <label for={id("description")}>Description</label>
            <input id={id("description")} value={row.description} onInput={(e) => set(row.key, { description: (e.target as HTMLInputElement).value })} placeholder="What an assistant should pass" />
            <div class="grid-2">
              <div><label for={id("default")}>Default</label>
                <input id={id("default")} value={row.defaultText} aria-invalid={errors.default ? "true" : undefined} onInput={(e) => set(row.key, { defaultText: (e.target as HTMLInputElement).value })} placeholder={row.type === "list" ? '["a"]' : "none"} />
                {errors.default ? <span class="field-error">Default {errors.default}</span> : null}</div>
              <div><label for={id("enum")}>Allowed values</label>
                <input id={id("enum")} value={row.enumText} disabled={row.type === "list" || row.type === "bool"} aria-invalid={errors.enum ? "true" : undefined} onInput={(e) => set(row.key, { enumText: (e.target as HTMLInputElement).value })} placeholder="any (comma-separated)" />
                {errors.enum ? <span class="field-error">Allowed values: {errors.enum}</span> : null}</div>
            </div>
            <div class="checks">
              <label><input type="checkbox" checked={row.required} onChange={(e) => set(row.key, { required: (e.target as HTMLInputElement).checked })} /> Required</label>
              <label title="Masked in the audit log"><input type="checkbox" checked={row.secret} onChange={(e) => set(row.key, { secret: (e.target as HTMLInputElement).checked })} /> Secret</label>
              <label title="Masked in the audit log"><input type="checkbox" checked={row.personal} onChange={(e) => set(row.key, { personal: (e.target as HTMLInputElement).checked })} /> Personal</label>
            </div>
            <div class="row-actions">
              <button type="button" disabled={index === 0} onClick={() => move(index, -1)} aria-label={`Move ${row.name || "parameter"} up`}>↑</button>
              <button type="button" disabled={index === rows.length - 1} onClick={() => move(index, 1)} aria-label={`Move ${row.name || "parameter"} down`}>↓</button>
              <button type="button" class="danger" onClick={() => update(rows.filter((r) => r.key !== row.key))}>Remove</button>
            </div>
          </fieldset>
        );
      })}
      {readOnly ? null : (
        <button type="button" onClick={() => update([...rows, toRow({ name: `param${rows.length + 1}`, type: "string", description: "" })])}>Add parameter</button>
      )}
    </div>
  );
}
