/**
 * The parameter editor: name, type, description, required, default, enum, secret/personal.
 * Defaults and enum values are typed as text and converted by the parameter's type; a value
 * that does not fit is shown next to its field and left out until it does. An `object`
 * parameter edits its members with a nested editor; a `list` picks its item type (an object
 * item type gets a nested editor for the item's members). The server bounds the nesting.
 * What the form does not show is kept as declared (param-row.ts).
 */
import { useState } from "preact/hooks";
import { PARAMETER_LIMITS } from "../../../src/plugins/manifest/parameter-limits.ts";
import type { Parameter } from "../lib/api.ts";
import { enumEditable, fromRow, toRow, type Row } from "./param-row.ts";

const TYPES: Parameter["type"][] = ["string", "int", "float", "bool", "list", "object"];
/** Levels of declared parameters (top level 1): any type at every level, members and items above the last. */
const MAX_DEPTH = PARAMETER_LIMITS.maxNesting;
const limitHint = `Nothing can be declared inside: parameters nest at most ${MAX_DEPTH} levels deep.`;

export function ParamEditor({ parameters, readOnly, onChange, depth = 1, label = "Parameter" }: { parameters: Parameter[]; readOnly: boolean; onChange(parameters: Parameter[]): void; depth?: number; label?: string }) {
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
    <div class={depth === 1 ? "param-editor" : "param-editor nested"}>
      {rows.length === 0 && depth === 1 ? <p class="empty small">No parameters: the tool takes no arguments. Add one to generate a form field and a schema property.</p> : null}
      {rows.map((row, index) => {
        const { errors } = fromRow(row);
        const id = (field: string) => `param-${row.key}-${field}`;
        // Members and items sit one level below this row; an item's members two.
        const nests = depth < MAX_DEPTH;
        const itemNests = depth + 1 < MAX_DEPTH;
        return (
          <fieldset class="param-row" key={row.key} disabled={readOnly} data-param={row.name}>
            <legend>{label} {index + 1}{row.name ? `: ${row.name}` : ""}</legend>
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
                <input id={id("default")} value={row.defaultText} aria-invalid={errors.default ? "true" : undefined} onInput={(e) => set(row.key, { defaultText: (e.target as HTMLInputElement).value })} placeholder={row.type === "list" ? '["a"]' : row.type === "object" ? '{"a": 1}' : "none"} />
                {errors.default ? <span class="field-error">Default {errors.default}</span> : null}</div>
              <div><label for={id("enum")}>Allowed values</label>
                <input id={id("enum")} value={row.enumText} disabled={!enumEditable(row.type)} aria-invalid={errors.enum ? "true" : undefined} onInput={(e) => set(row.key, { enumText: (e.target as HTMLInputElement).value })} placeholder={enumEditable(row.type) ? "any (comma-separated)" : "any"} />
                {errors.enum ? <span class="field-error">Allowed values: {errors.enum}</span> : null}</div>
            </div>
            <div class="checks">
              <label><input type="checkbox" checked={row.required} onChange={(e) => set(row.key, { required: (e.target as HTMLInputElement).checked })} /> Required</label>
              <label title="Masked in the audit log"><input type="checkbox" checked={row.secret} onChange={(e) => set(row.key, { secret: (e.target as HTMLInputElement).checked })} /> Secret</label>
              <label title="Masked in the audit log"><input type="checkbox" checked={row.personal} onChange={(e) => set(row.key, { personal: (e.target as HTMLInputElement).checked })} /> Personal</label>
            </div>
            {row.type === "object" && nests ? (
              <div class="param-members" role="group" aria-label={`Members of ${row.name || "object"}`}>
                <p class="hint small">Members of <code>{row.name || "this object"}</code>, each a parameter:</p>
                <ParamEditor parameters={row.properties} readOnly={readOnly} depth={depth + 1} label="Member" onChange={(properties) => set(row.key, { properties })} />
              </div>
            ) : null}
            {(row.type === "object" || row.type === "list") && !nests ? <p class="hint small">{limitHint}</p> : null}
            {row.type === "list" && nests ? (
              <div class="param-members">
                <div class="grid-2">
                  <div><label for={id("items")}>Item type</label>
                    <select id={id("items")} value={row.itemType} onChange={(e) => set(row.key, { itemType: (e.target as HTMLSelectElement).value as Row["itemType"] })}>
                      <option value="">any JSON value</option>
                      {TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
                    </select></div>
                  <div class="checks">
                    <label title="Masked in the audit log"><input type="checkbox" checked={row.itemSecret} disabled={row.itemType === ""} onChange={(e) => set(row.key, { itemSecret: (e.target as HTMLInputElement).checked })} /> Items secret</label>
                    <label title="Masked in the audit log"><input type="checkbox" checked={row.itemPersonal} disabled={row.itemType === ""} onChange={(e) => set(row.key, { itemPersonal: (e.target as HTMLInputElement).checked })} /> Items personal</label>
                  </div>
                </div>
                {row.itemType === "object" && itemNests ? (
                  <div role="group" aria-label={`Item members of ${row.name || "list"}`}>
                    <ParamEditor parameters={row.itemProperties} readOnly={readOnly} depth={depth + 2} label="Item member" onChange={(itemProperties) => set(row.key, { itemProperties })} />
                  </div>
                ) : null}
                {row.itemType === "object" && !itemNests ? <p class="hint small">{limitHint}</p> : null}
              </div>
            ) : null}
            <div class="row-actions">
              <button type="button" disabled={index === 0} onClick={() => move(index, -1)} aria-label={`Move ${row.name || "parameter"} up`}>↑</button>
              <button type="button" disabled={index === rows.length - 1} onClick={() => move(index, 1)} aria-label={`Move ${row.name || "parameter"} down`}>↓</button>
              <button type="button" class="danger" onClick={() => update(rows.filter((r) => r.key !== row.key))}>Remove</button>
            </div>
          </fieldset>
        );
      })}
      {readOnly ? null : (
        <button type="button" onClick={() => update([...rows, toRow({ name: `${depth === 1 ? "param" : "member"}${rows.length + 1}`, type: "string", description: "" })])}>{depth === 1 ? "Add parameter" : `Add ${label.toLowerCase()}`}</button>
      )}
    </div>
  );
}
