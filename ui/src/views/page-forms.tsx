/**
 * The interactive blocks of a plugin page: forms and buttons post to the page's action route and
 * hand the envelope back to the page. Every label, value and option is rendered as text; the
 * server already checked each action names a handler of this plugin.
 */
import { useState } from "preact/hooks";
import { FieldHelpers, useFieldHandlers, type FieldHandler } from "../editor/field-helpers.tsx";

export interface Field {
  name: string;
  label: string;
  type: "text" | "number" | "select" | "checkbox";
  required: boolean;
  value: string;
  options?: { value: string; label: string }[];
}

export type InteractiveBlock =
  | { type: "form"; action: string; submit: string; fields: Field[] }
  | { type: "button"; label: string; action: string; params: Record<string, string> };

/** Runs an action with form fields; resolves when the page has applied the answer. */
export type RunAction = (action: string, fields: Array<[string, string]>) => Promise<void>;

export function PageForm({ block, run, idPrefix }: { block: Extract<InteractiveBlock, { type: "form" }>; run: RunAction; idPrefix: string }) {
  const [busy, setBusy] = useState(false);
  const helpers = useFieldHandlers();
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    // A checkbox posts "true" or "false" (an HTML form would leave an unchecked one out).
    const fields: Array<[string, string]> = block.fields.map((field) => {
      const input = form.elements.namedItem(field.name) as HTMLInputElement | HTMLSelectElement;
      return [field.name, field.type === "checkbox" ? String((input as HTMLInputElement).checked) : input.value];
    });
    setBusy(true);
    try {
      await run(block.action, fields);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="page-form" data-action={block.action} onSubmit={onSubmit}>
      {block.fields.map((field) => {
        const id = `${idPrefix}-${field.name}`;
        return (
          <div key={field.name} class={field.type === "checkbox" ? "form-row checkbox" : "form-row"}>
            <label for={id}>{field.label}</label>
            <FieldInput field={field} id={id} helpers={helpers} />
          </div>
        );
      })}
      <button type="submit" class="primary" disabled={busy}>{block.submit}</button>
    </form>
  );
}

function FieldInput({ field, id, helpers }: { field: Field; id: string; helpers: FieldHandler[] }) {
  const [text, setText] = useState(field.value);
  switch (field.type) {
    case "checkbox": return <input id={id} name={field.name} type="checkbox" defaultChecked={field.value === "true"} />;
    case "select": return (
      <select id={id} name={field.name} required={field.required}>
        {(field.options ?? []).map((o) => <option key={o.value} value={o.value} selected={o.value === field.value}>{o.label}</option>)}
      </select>
    );
    case "number": return <>
      <input id={id} name={field.name} type="number" step="any" required={field.required} value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      <FieldHelpers handlers={helpers} field={field.name} value={text} onValue={setText} />
    </>;
    default: return <>
      <input id={id} name={field.name} type="text" required={field.required} value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      <FieldHelpers handlers={helpers} field={field.name} value={text} onValue={setText} />
    </>;
  }
}

export function PageButton({ block, run }: { block: Extract<InteractiveBlock, { type: "button" }>; run: RunAction }) {
  const [busy, setBusy] = useState(false);
  const onClick = async () => {
    setBusy(true);
    try {
      await run(block.action, Object.entries(block.params));
    } finally {
      setBusy(false);
    }
  };
  return <p class="page-button"><button type="button" disabled={busy} onClick={onClick}>{block.label}</button></p>;
}

/**
 * Only a path on this origin is followed, checked again here (the server already refused others):
 * `new URL` resolves it, anything landing elsewhere is dropped, and what is followed is the whole
 * resolved URL (a path alone can read as `//host` once dot segments are resolved: `/.//host`).
 */
export function sameOriginTarget(redirect: string): string | null {
  if (!redirect.startsWith("/") || redirect.startsWith("//") || redirect.includes("\\")) return null;
  const url = new URL(redirect, window.location.origin);
  return url.origin === window.location.origin && !url.pathname.startsWith("//") ? url.href : null;
}
