/** Small shared pieces: loading and error states, empty states, dialogs, formatting. */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: ApiError | null; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: null, error: asApiError(error), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError("NETWORK", error instanceof Error ? error.message : String(error), 0);
}

export function ErrorBox({ error, title }: { error: ApiError | null; title?: string }) {
  if (!error) return null;
  return (
    <div class="error-box" role="alert">
      {title ? <strong>{title}: </strong> : null}
      <span class="error-message">{error.message}</span> <code class="error-code">{error.code}</code>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return <p class="loading" role="status">Loading {what}…</p>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** A modal built on <dialog>: focus stays inside, Escape closes, the opener gets focus back. */
export function Modal({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    dialog?.showModal();
    return () => {
      dialog?.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog ref={ref} class={wide ? "modal wide" : "modal"} aria-label={title} onCancel={(e) => { e.preventDefault(); onClose(); }}>
      <header class="modal-head">
        <h2>{title}</h2>
        <button type="button" class="icon" aria-label="Close" onClick={onClose}>×</button>
      </header>
      <div class="modal-body">{children}</div>
    </dialog>
  );
}

export function ConfirmDialog(props: { title: string; message: ComponentChildren; confirm: string; danger?: boolean; onConfirm: () => Promise<void> | void; onClose: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
      props.onClose();
    } catch (e) {
      setError(asApiError(e));
      setBusy(false);
    }
  };
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <div class="confirm-message">{props.message}</div>
      <ErrorBox error={error} />
      <div class="actions">
        <button type="button" onClick={props.onClose}>Cancel</button>
        <button type="button" class={props.danger ? "danger" : "primary"} disabled={busy} onClick={run}>{props.confirm}</button>
      </div>
    </Modal>
  );
}

/** A dialog asking for a new name: `save` stores it (throwing an API error shown in place), then the dialog closes. */
export function NameDialog(props: {
  title: string; id: string; label: string; initial: string; confirm: string; hint?: string; maxLength?: number;
  save: (name: string) => Promise<void>; onClose: () => void;
}) {
  const [name, setName] = useState(props.initial);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await props.save(name);
      props.onClose();
    } catch (err) {
      setError(asApiError(err));
    }
  };
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <form onSubmit={submit} class="stack">
        <label for={props.id}>{props.label}</label>
        <input id={props.id} value={name} required maxLength={props.maxLength} autoFocus onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        {props.hint ? <p class="hint small">{props.hint}</p> : null}
        <ErrorBox error={error} title="Could not rename" />
        <div class="actions"><button type="button" onClick={props.onClose}>Cancel</button><button type="submit" class="primary">{props.confirm}</button></div>
      </form>
    </Modal>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function formatJson(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
