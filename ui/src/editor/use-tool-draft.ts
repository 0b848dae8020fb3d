/**
 * One tool's draft in the editor, against the saved version it is based on: load, patch, replace,
 * save. A save sends that version as `expectedVersion`, so the server refuses to overwrite a
 * version someone saved meanwhile. While the draft is unsaved it is also kept in the tab
 * (draft-store.ts); a kept draft found on opening the tool is offered back (`recovered`).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, get, type ApiError, type Diagnostic, type Tool } from "../lib/api.ts";
import { asApiError } from "../lib/ui.tsx";
import { draftOf, same, type Draft } from "./draft.ts";
import { forgetDraft, keepDraft, storedDraft, type StoredDraft } from "./draft-store.ts";

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
  /** Unsaved changes kept in this tab from an earlier editor (say, before the session ended), not applied until restored. */
  recovered: StoredDraft | null;
  restoreRecovered(): void;
  discardRecovered(): void;
  /** Drops the kept draft: the user chose to leave without saving. */
  forgetKept(): void;
  /** The saved version the draft was made to, which a save expects. */
  basedOn: number;
  /** The latest saved version, when a save was refused because it was saved meanwhile (CONFLICT); the draft stays. */
  conflict: Tool | null;
  /** Saves the draft over `conflict`. */
  overwrite(): void;
  /** Drops the draft for `conflict`. */
  takeTheirs(): void;
}

export function useToolDraft(id: string, userId: string, onDiagnostics: (diagnostics: Diagnostic[]) => void): ToolDraft {
  const [tool, setToolState] = useState<Tool | null>(null);
  // The version the draft was made to: the tool's, unless a kept draft made to an older one was restored.
  const [basedOn, setBasedOn] = useState(0);
  const [recovered, setRecovered] = useState<StoredDraft | null>(null);
  const [conflict, setConflict] = useState<Tool | null>(null);
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
  const setTool = (next: Tool) => {
    setToolState(next);
    setBasedOn(next.version);
  };
  const dirty = !!tool && !!draft && !same(draftOf(tool), draft);

  useEffect(() => {
    get<{ tool: Tool }>(`/api/tools/${encodeURIComponent(id)}`).then(({ tool }) => {
      setTool(tool);
      setDraft(draftOf(tool));
      const kept = tool.mine ? storedDraft(userId, id) : null;
      if (kept && !same(kept.draft, draftOf(tool))) setRecovered(kept);
    }, (e) => setLoadError(asApiError(e)));
  }, [id]);

  // Keep the draft in the tab while it is unsaved; not while a kept one waits for the user's choice.
  useEffect(() => {
    if (!tool?.mine || !draft || recovered) return;
    if (dirty) keepDraft(userId, id, { version: basedOn, draft });
    else forgetDraft(userId, id);
  }, [tool, draft, basedOn, recovered]);

  const save = async (expectedVersion = basedOn) => {
    const sent = draftRef.current;
    if (!tool || !sent || !tool.mine || saving) return;
    setSaving(true);
    setSaveError(null);
    setConflict(null);
    try {
      const saved = await api<{ tool: Tool; diagnostics: Diagnostic[] }>("PUT", `/api/tools/${encodeURIComponent(tool.id)}`, { ...sent, expectedVersion });
      setTool(saved.tool);
      onDiagnostics(saved.diagnostics);
      // Typing went on while the save was out: keep those edits (unsaved), now based on the saved version.
      const typedSince = !same(draftRef.current ?? sent, sent);
      if (!typedSince) setDraft(draftOf(saved.tool));
      setNotice(`Saved as version ${saved.tool.version}.${typedSince ? " Your edits since are not saved yet." : ""}`);
    } catch (e) {
      const error = asApiError(e);
      // CONFLICT is also a name clash: a version conflict only if the tool moved past the expected version.
      const latest = error.code === "CONFLICT" ? await get<{ tool: Tool }>(`/api/tools/${encodeURIComponent(tool.id)}`).then((r) => r.tool, () => null) : null;
      if (latest && latest.version !== expectedVersion) setConflict(latest);
      else setSaveError(error);
    } finally {
      setSaving(false);
    }
  };

  return {
    tool, draft, loadError, dirty, revision, saving, saveError, notice, recovered, conflict, basedOn,
    save: () => save(),
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
    restoreRecovered: () => {
      if (!recovered || !tool) return;
      setDraft(recovered.draft);
      setBasedOn(recovered.version);
      setRevision((r) => r + 1);
      setRecovered(null);
      setNotice(recovered.version === tool.version
        ? "Your unsaved changes are back in the editor. Save to keep them."
        : `Your unsaved changes are back in the editor. They were made to version ${recovered.version}; the tool is now at version ${tool.version}, so saving will not silently replace it.`);
    },
    discardRecovered: () => {
      forgetDraft(userId, id);
      setRecovered(null);
    },
    forgetKept: () => forgetDraft(userId, id),
    overwrite: () => {
      if (conflict) void save(conflict.version);
    },
    takeTheirs: () => {
      if (!conflict) return;
      setTool(conflict);
      setDraft(draftOf(conflict));
      setRevision((r) => r + 1);
      setConflict(null);
      setNotice(`Your changes were discarded: the editor shows version ${conflict.version}.`);
    },
  };
}
