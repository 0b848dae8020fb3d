/**
 * The run panel: a form generated from the parameters, Run through the real sandbox as the
 * signed-in user, and the result, log, duration and error code. A long run shows its progress
 * and elapsed time and can be cancelled. Everything a tool returns or logs is shown as text.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ApiError, Parameter } from "../lib/api.ts";
import { asApiError, formatJson } from "../lib/ui.tsx";
import { parseValue } from "./param-row.ts";
import { FieldHelpers, useFieldHandlers, type FieldHandler } from "./field-helpers.tsx";
import { streamRun, type RunLine } from "./run-stream.ts";

export type RunSource = { toolId: string } | { draft: { name: string; code: string; language: "js" | "ts"; parameters: Parameter[] } };

interface RunState {
  running: boolean;
  startedAt: number;
  progress: { done: number; total?: number; message?: string } | null;
  log: { level: string; message: string }[];
  outcome: Extract<RunLine, { type: "outcome" }> | null;
  error: { code: string; message: string } | null;
  cancelled: boolean;
}

const IDLE: RunState = { running: false, startedAt: 0, progress: null, log: [], outcome: null, error: null, cancelled: false };

function initialValue(p: Parameter): string {
  if (p.default === undefined) return p.type === "bool" ? "" : "";
  return p.type === "string" ? String(p.default) : JSON.stringify(p.default);
}

/** Form text → arguments; empty optional fields are left out so defaults apply. */
export function argumentsOf(parameters: Parameter[], values: Record<string, string>): { args: Record<string, unknown>; errors: Record<string, string> } {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const p of parameters) {
    const text = values[p.name] ?? "";
    if (text === "" && p.type !== "string") continue;
    if (text === "" && !p.required) continue;
    const parsed = parseValue(p.type, text);
    if ("error" in parsed) errors[p.name] = `must be ${parsed.error}`;
    else args[p.name] = parsed.value;
  }
  return { args, errors };
}

export function RunPanel({ source, parameters, label }: { source: RunSource; parameters: Parameter[]; label: string }) {
  // Only what the user typed, by name: the panel stays mounted while parameters are edited (a remount
  // would cancel a run), so a new or renamed parameter shows its default without a reset.
  const [typed, setTyped] = useState<Record<string, string>>({});
  const values = Object.fromEntries(parameters.map((p) => [p.name, typed[p.name] ?? initialValue(p)]));
  const [state, setState] = useState<RunState>(IDLE);
  const [now, setNow] = useState(Date.now());
  const abort = useRef<AbortController | null>(null);
  const { args, errors } = argumentsOf(parameters, values);
  const fieldHandlers = useFieldHandlers();

  useEffect(() => {
    if (!state.running) return;
    const timer = setInterval(() => setNow(Date.now()), 200);
    return () => clearInterval(timer);
  }, [state.running]);
  useEffect(() => () => abort.current?.abort(), []);

  const run = async (e: Event) => {
    e.preventDefault();
    if (Object.keys(errors).length > 0) return;
    const controller = new AbortController();
    abort.current = controller;
    setState({ ...IDLE, running: true, startedAt: Date.now() });
    setNow(Date.now());
    try {
      await streamRun({ ...source, args }, controller.signal, (line) => {
        setState((s) => {
          switch (line.type) {
            case "progress": return { ...s, progress: line };
            case "log": return { ...s, log: [...s.log, line] };
            case "outcome": return { ...s, outcome: line, log: line.log };
            case "error": return { ...s, error: line };
          }
        });
      });
      setState((s) => ({ ...s, running: false }));
    } catch (err) {
      if (controller.signal.aborted) setState((s) => ({ ...s, running: false, cancelled: true }));
      else {
        const apiError: ApiError = asApiError(err);
        setState((s) => ({ ...s, running: false, error: { code: apiError.code, message: apiError.message } }));
      }
    }
  };
  const cancel = () => abort.current?.abort();
  const elapsed = ((state.running ? now : now) - state.startedAt) / 1000;
  const outcome = state.outcome;
  const failure = outcome && !outcome.ok ? outcome.error : state.error;

  return (
    <div class="run-panel">
      <form onSubmit={run} class="stack" aria-label={`Run ${label}`}>
        {parameters.length === 0 ? <p class="hint small">This tool takes no arguments.</p> : null}
        {parameters.map((p) => <ArgField key={p.name} parameter={p} value={values[p.name] ?? ""} error={errors[p.name]} onInput={(v) => setTyped((current) => ({ ...current, [p.name]: v }))} helpers={fieldHandlers} />)}
        <div class="actions left">
          <button type="submit" class="primary" disabled={state.running}>Run</button>
          {state.running ? <button type="button" class="danger" onClick={cancel}>Cancel</button> : null}
        </div>
      </form>
      <section class="run-output" aria-live="polite" aria-label="Run output">
        {state.running ? (
          <div class="run-progress" role="status">
            <progress max={state.progress?.total ?? undefined} value={state.progress && state.progress.total ? state.progress.done : undefined} />
            <span>Running… {elapsed.toFixed(1)} s{state.progress ? ` — ${state.progress.done}${state.progress.total ? ` / ${state.progress.total}` : ""}${state.progress.message ? ` ${state.progress.message}` : ""}` : ""}</span>
          </div>
        ) : null}
        {state.cancelled ? <div class="notice" role="status">Run cancelled after {elapsed.toFixed(1)} s.</div> : null}
        {failure ? (
          <div class="error-box run-error" role="alert"><code class="error-code">{failure.code}</code> <span class="error-message">{failure.message}</span></div>
        ) : null}
        {outcome && outcome.ok ? (
          <div class="run-result">
            <h3>Result <span class="muted small">({outcome.resultKind === "json" ? "JSON" : outcome.resultKind})</span></h3>
            <pre class="result-text">{outcome.resultKind === "json" || outcome.resultKind === "content" ? formatJson(outcome.result) : outcome.result === null ? "(no result)" : String(outcome.result)}</pre>
          </div>
        ) : null}
        {outcome ? <p class="duration muted small">Took {outcome.durationMs} ms</p> : null}
        {state.log.length > 0 ? (
          <div class="run-log">
            <h3>Log</h3>
            <ol class="log-lines">{state.log.map((l, i) => <li key={i} class={`log-${l.level}`}><span class="log-level">{l.level}</span> <span class="log-message">{l.message}</span></li>)}</ol>
          </div>
        ) : null}
      </section>
    </div>
  );
}

function ArgField({ parameter: p, value, error, onInput, helpers }: { parameter: Parameter; value: string; error: string | undefined; onInput(v: string): void; helpers: FieldHandler[] }) {
  const id = `arg-${p.name}`;
  const label = <label for={id}>{p.name}{p.required ? <span class="required" aria-label="required"> *</span> : null} <span class="muted small">{p.type}{p.secret ? ", secret" : ""}{p.personal ? ", personal" : ""}</span></label>;
  const common = { id, name: p.name, "aria-invalid": error ? ("true" as const) : undefined, "aria-describedby": p.description ? `${id}-hint` : undefined };
  let input;
  if (p.enum && p.enum.length > 0) {
    input = (
      <select {...common} value={value} onChange={(e) => onInput((e.target as HTMLSelectElement).value)}>
        {p.required ? null : <option value="">(default)</option>}
        {p.enum.map((v) => { const text = typeof v === "string" ? v : JSON.stringify(v); return <option key={text} value={text}>{text}</option>; })}
      </select>
    );
  } else if (p.type === "bool") {
    input = (
      <select {...common} value={value} onChange={(e) => onInput((e.target as HTMLSelectElement).value)}>
        <option value="">(default)</option><option value="true">true</option><option value="false">false</option>
      </select>
    );
  } else if (p.type === "list" || p.type === "object") {
    input = <textarea {...common} rows={2} value={value} placeholder={p.type === "list" ? '["a", "b"]' : '{"a": 1}'} onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)} />;
  } else {
    const onText = (e: Event) => onInput((e.target as HTMLInputElement).value);
    if (p.secret) input = <input {...common} type="password" autoComplete="off" required={p.required} value={value} onInput={onText} />;
    else if (p.type === "string") input = <input {...common} type="text" autoComplete="off" required={p.required} value={value} onInput={onText} />;
    else input = <input {...common} type="number" step={p.type === "float" ? "any" : "1"} value={value} onInput={onText} />;
  }
  return (
    <div class="arg-field">
      {label}
      {input}
      {/* Field handlers apply to the fields a person types a value into (not secrets: a helper would send one to plugin code). */}
      {!p.secret && !p.enum && (p.type === "string" || p.type === "int" || p.type === "float") ? <FieldHelpers handlers={helpers} field={p.name} value={value} onValue={onInput} /> : null}
      {p.description ? <span id={`${id}-hint`} class="hint small">{p.description}</span> : null}
      {error ? <span class="field-error">{p.name} {error}</span> : null}
    </div>
  );
}
