/**
 * One tool's draft in the editor, against the saved version it is based on (`tool`): load, patch,
 * replace, save. A save sends that version as `expectedVersion`, so the server refuses to
 * overwrite a version someone saved meanwhile.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, get, type ApiError, type Diagnostic, type Tool } from "../lib/api.ts";
import { asApiError } from "../lib/ui.tsx";
import { draftOf, same, type Draft } from "./draft.ts";

export interface ToolDraft {
  tool: Tool | null;
  draft: Draft | null;
  loadError: ApiError | null;
  dirty: boolean;
  /** Bumps when the draft is replaced from outside the code editor, which then takes its code. */
  revision: number;
  saving: boolean;
  saveError: ApiError | null;
  notice: string | null;
  patch(p: Partial<Draft>): void;
  /** Puts `draft` in the editor (a restored version): unsaved until saved. */
  replace(draft: Draft, notice: string): void;
  /** Takes a version saved by other means (Update libs) as both base and draft. */
  adopt(tool: Tool, notice: string): void;
  save(): Promise<void>;
}

export function useToolDraft(id: string, onDiagnostics: (diagnostics: Diagnostic[]) => void): ToolDraft {
  const [tool, setTool] = useState<Tool | null>(null);
  const [draft, setDraftState] = useState<Draft | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [revision, setRevision] = useState(0);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // The newest draft, also between a keystroke and the render it causes: a save's answer compares against it.
  const draftRef = useRef<Draft | null>(null);
  const setDraft = (next: Draft) => {
    draftRef.current = next;
    setDraftState(next);
  };

  useEffect(() => {
    get<{ tool: Tool }>(`/api/tools/${encodeURIComponent(id)}`).then(({ tool }) => {
      setTool(tool);
      setDraft(draftOf(tool));
    }, (e) => setLoadError(asApiError(e)));
  }, [id]);

  const save = async () => {
    const sent = draftRef.current;
    if (!tool || !sent || !tool.mine || saving) return;
    setSaving(true);
    setSaveError(null);
    try {
      const saved = await api<{ tool: Tool; diagnostics: Diagnostic[] }>("PUT", `/api/tools/${encodeURIComponent(tool.id)}`, { ...sent, expectedVersion: tool.version });
      setTool(saved.tool);
      onDiagnostics(saved.diagnostics);
      // Typing went on while the save was out: keep those edits (unsaved), now based on the saved version.
      const typedSince = !same(draftRef.current ?? sent, sent);
      if (!typedSince) setDraft(draftOf(saved.tool));
      setNotice(`Saved as version ${saved.tool.version}.${typedSince ? " Your edits since are not saved yet." : ""}`);
    } catch (e) {
      setSaveError(asApiError(e));
    } finally {
      setSaving(false);
    }
  };

  return {
    tool, draft, loadError, revision, saving, saveError, notice, save,
    dirty: !!tool && !!draft && !same(draftOf(tool), draft),
    patch: (p) => {
      if (!draftRef.current) return;
      setNotice(null);
      setDraft({ ...draftRef.current, ...p });
    },
    replace: (next, note) => {
      setDraft(next);
      setRevision((r) => r + 1);
      setNotice(note);
    },
    adopt: (next, note) => {
      setTool(next);
      setDraft(draftOf(next));
      setNotice(note);
    },
  };
}
