/**
 * Field handlers (`[[tool.knot.field_handlers]]`) next to the fields they apply to: text and
 * number fields of the run form and of plugin page forms. Only those the user passes are listed
 * (`GET /api/plugins/navigation` filters by the field handler's and its handler's gates). Using
 * one calls its handler as the user (POST `{ field, value }`, CSRF header, gated and audited like
 * any handler call); a string answer, or `{ value }`, fills the field — as text, never as markup.
 */
import { useEffect, useState } from "preact/hooks";
import { get, pluginFetch } from "../lib/api.ts";
import { asApiError } from "../lib/ui.tsx";

export interface FieldHandler {
  plugin: string;
  label: string;
  handler: string;
}

/** The field handlers the signed-in user may use (asked per mount: another user may sign in on the same page). */
export function useFieldHandlers(): FieldHandler[] {
  const [handlers, setHandlers] = useState<FieldHandler[]>([]);
  useEffect(() => {
    let live = true;
    get<{ plugins: Array<{ name: string; fieldHandlers: Array<{ label: string; handler: string }> }> }>("/api/plugins/navigation").then(
      (r) => live && setHandlers(r.plugins.flatMap((p) => p.fieldHandlers.map((f) => ({ plugin: p.name, label: f.label, handler: f.handler })))),
      () => live && setHandlers([]),
    );
    return () => {
      live = false;
    };
  }, []);
  return handlers;
}

/** What a field handler answered, as the field's new text; null when it gave none. */
export function fieldValueOf(answer: unknown): string | null {
  if (typeof answer === "string") return answer;
  if (typeof answer === "number" || typeof answer === "boolean") return String(answer);
  if (answer && typeof answer === "object" && "value" in answer) {
    const value = (answer as { value: unknown }).value;
    return value === null || value === undefined ? null : typeof value === "string" ? value : JSON.stringify(value);
  }
  return null;
}

export function FieldHelpers({ handlers, field, value, onValue }: { handlers: FieldHandler[]; field: string; value: string; onValue(text: string): void }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (handlers.length === 0) return null;
  const use = async (h: FieldHandler) => {
    setBusy(true);
    setProblem(null);
    try {
      const text = fieldValueOf(await pluginFetch(`${h.plugin}/${h.handler}`, { method: "POST", params: { field, value } }));
      if (text === null) setProblem(`${h.label}: no value came back`);
      else onValue(text);
    } catch (error) {
      setProblem(`${h.label}: ${asApiError(error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="field-helpers" role="group" aria-label={`Helpers for ${field}`}>
      {handlers.map((h) => <button key={`${h.plugin}/${h.handler}`} type="button" class="link small" disabled={busy} onClick={() => void use(h)}>{h.label}</button>)}
      {problem ? <span class="field-error">{problem}</span> : null}
    </span>
  );
}
