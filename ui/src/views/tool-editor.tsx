/**
 * The tool editor: code (CodeMirror, lint as you type, completion), parameters with the schema
 * an assistant will receive, sharing and settings, Save (a new version each time) with history,
 * diff and restore, and the run panel. Unsaved changes are guarded, and kept in the tab until saved.
 */
import type { EditorView } from "@codemirror/view";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { CodeEditor, offsetOf } from "../editor/code-editor.tsx";
import type { EditorModule } from "../editor/completions.ts";
import { HistoryPanel, type SavedVersion } from "../editor/history-panel.tsx";
import { LibsPanel } from "../editor/libs-panel.tsx";
import { ParamEditor } from "../editor/param-editor.tsx";
import { RunPanel, type RunSource } from "../editor/run-panel.tsx";
import { SaveConflict } from "../editor/save-conflict.tsx";
import { SchemaPreview } from "../editor/schema-preview.tsx";
import { SettingsPanel } from "../editor/settings-panel.tsx";
import { DeliveriesPanel, EventsPanel } from "../editor/sink-panels.tsx";
import { RecoveredDraft } from "../editor/recovered-draft.tsx";
import { useLeaveGuard } from "../editor/use-leave-guard.ts";
import { useToolDraft } from "../editor/use-tool-draft.ts";
import { get, type Diagnostic, type Me, type Parameter } from "../lib/api.ts";
import { href } from "../lib/router.ts";
import { ErrorBox, Loading } from "../lib/ui.tsx";

type Tab = "run" | "parameters" | "schema" | "libs" | "history" | "settings" | "events" | "deliveries";

export function ToolEditor({ id, me }: { id: string; me: Me }) {
  const [modules, setModules] = useState<EditorModule[]>([]);
  const [diagnostics, setDiagnostics] = useState<Diagnostic[]>([]);
  const [tab, setTab] = useState<Tab>("run");
  const view = useRef<EditorView | null>(null);
  const toolDraft = useToolDraft(id, me.id, setDiagnostics);
  const { tool, draft, loadError, dirty, revision, saving, saveError, notice, patch, replace, adopt, save } = toolDraft;
  useLeaveGuard(dirty, toolDraft.forgetKept);

  useEffect(() => {
    get<{ modules: EditorModule[] }>("/api/editor/modules").then((r) => setModules(r.modules), () => {});
  }, []);

  const saveRef = useRef<() => void>(() => {});
  saveRef.current = save;

  const runSource: RunSource | null = useMemo(() => {
    if (!tool || !draft) return null;
    return tool.mine && dirty ? { draft: { name: draft.name, code: draft.code, language: draft.language, parameters: draft.parameters } } : { toolId: tool.id };
  }, [tool, draft, dirty]);

  if (loadError) return <section><h1>Tool</h1><ErrorBox error={loadError} title="Could not open this tool" /><p><a href={href("tools")}>Back to your tools</a></p></section>;
  if (!tool || !draft) return <Loading what="the tool" />;

  const readOnly = !tool.mine;
  const restore = (v: SavedVersion) => replace(
    { ...draft, name: v.tool.name, description: v.tool.description, language: v.tool.language, parameters: v.tool.parameters, code: v.tool.code, sharing: v.tool.sharing, active: v.tool.active, readOnly: v.tool.readOnly === true, destructive: v.tool.destructive === true },
    `Version ${v.version} restored into the editor. Save to make it the current version.`,
  );
  const jump = (d: Diagnostic) => {
    const v = view.current;
    if (!v) return;
    const pos = offsetOf(v.state.doc, d.line, d.column);
    v.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
    v.focus();
  };
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const tabs: [Tab, string][] = tool.kind === "tool"
    ? [["run", "Run"], ["parameters", "Parameters"], ["schema", "Schema"], ["libs", "Libs"], ["history", "History"], ["settings", "Settings"]]
    : tool.kind === "sink" ? [["events", "Events"], ["deliveries", "Deliveries"], ["libs", "Libs"], ["history", "History"], ["settings", "Settings"]]
    : [["libs", "Libs"], ["history", "History"], ["settings", "Settings"]];
  const activeTab = tabs.some(([t]) => t === tab) ? tab : tabs[0]![0];

  return (
    <section class="tool-editor">
      <header class="page-head editor-head">
        <div>
          <a href={href("tools")} class="muted small">← My tools</a>
          <h1>{draft.name} <span class="badge">{tool.kind}</span> <span class="muted small">v{tool.version}</span></h1>
          {readOnly ? <p class="notice small">Shared with you by its owner, {tool.ownerName}: you can run it and read it, not change it. Assistants call it <code>{tool.ownerName}__{tool.name}</code>.</p> : null}
        </div>
        <div class="save-area">
          {readOnly ? null : <span class={dirty ? "status unsaved" : "status saved"} role="status">{dirty ? "Unsaved changes" : "All changes saved"}</span>}
          {readOnly ? null : <button type="button" class="primary" onClick={save} disabled={!dirty || saving} title="Save (Ctrl+S)">{saving ? "Saving…" : "Save"}</button>}
        </div>
      </header>
      {toolDraft.recovered ? <RecoveredDraft kept={toolDraft.recovered} currentVersion={tool.version} onRestore={toolDraft.restoreRecovered} onDiscard={toolDraft.discardRecovered} /> : null}
      {toolDraft.conflict ? <SaveConflict latest={toolDraft.conflict} basedOn={toolDraft.basedOn} mine={draft.code} saving={saving} onOverwrite={toolDraft.overwrite} onTakeTheirs={toolDraft.takeTheirs} /> : null}
      <ErrorBox error={saveError} title="Could not save" />
      {notice ? <div class="notice" role="status">{notice}</div> : null}
      <div class="editor-grid">
        <div class="editor-main">
          <CodeEditor value={draft.code} revision={revision} language={draft.language} kind={tool.kind} readOnly={readOnly} modules={modules}
            onChange={(code) => patch({ code })} onSave={() => saveRef.current()} onDiagnostics={setDiagnostics} onView={(v) => (view.current = v)} />
          <div class="problems" aria-label="Problems">
            {diagnostics.length === 0 ? <p class="muted small">No problems found.</p> : (
              <>
                <p class="small"><strong>{errors} error{errors === 1 ? "" : "s"}</strong>, {diagnostics.length - errors} warning{diagnostics.length - errors === 1 ? "" : "s"}</p>
                <ul>{diagnostics.map((d, i) => (
                  <li key={i} class={`diag diag-${d.severity}`}>
                    <button type="button" class="link" onClick={() => jump(d)}>Line {d.line}:{d.column}</button> <span class="diag-message">{d.message}</span> <code>{d.code}</code>
                  </li>
                ))}</ul>
              </>
            )}
          </div>
        </div>
        <aside class="side-panel">
          <div role="tablist" aria-label="Tool panels" class="tabs">
            {tabs.map(([t, label]) => (
              <button key={t} type="button" role="tab" id={`tab-${t}`} aria-selected={activeTab === t} aria-controls={`panel-${t}`} tabIndex={activeTab === t ? 0 : -1}
                onClick={() => setTab(t)}
                onKeyDown={(e) => {
                  const i = tabs.findIndex(([x]) => x === activeTab);
                  const next = e.key === "ArrowRight" ? tabs[(i + 1) % tabs.length] : e.key === "ArrowLeft" ? tabs[(i - 1 + tabs.length) % tabs.length] : null;
                  if (next) {
                    setTab(next[0]);
                    document.getElementById(`tab-${next[0]}`)?.focus();
                  }
                }}>{label}</button>
            ))}
          </div>
          <div role="tabpanel" id={`panel-${activeTab}`} aria-labelledby={`tab-${activeTab}`} class="tab-panel">
            {/* Mounted while other tabs show: unmounting it would cancel a run in progress. */}
            {tool.kind === "tool" && runSource ? (
              <div hidden={activeTab !== "run"}>
                {tool.mine && dirty ? <p class="hint small">Runs the editor's unsaved code as a draft.</p> : null}
                <RunPanel source={runSource} parameters={draft.parameters} label={draft.name} />
              </div>
            ) : null}
            {activeTab === "parameters" ? <ParamEditor key={revision} parameters={draft.parameters} readOnly={readOnly} onChange={(parameters: Parameter[]) => patch({ parameters })} /> : null}
            {activeTab === "schema" && tool.kind !== "sink" ? <SchemaPreview draft={draft} kind={tool.kind} /> : null}
            {activeTab === "libs" ? (
              <LibsPanel tool={tool} dirty={dirty} onUpdated={adopt} />
            ) : null}
            {activeTab === "events" ? <EventsPanel events={draft.events ?? []} readOnly={readOnly} onChange={(events) => patch({ events })} /> : null}
            {activeTab === "deliveries" ? <DeliveriesPanel sinkId={tool.id} /> : null}
            {activeTab === "history" ? <HistoryPanel toolId={tool.id} currentVersion={tool.version} currentCode={draft.code} currentParameters={draft.parameters} language={draft.language} canRestore={!readOnly} onRestore={restore} /> : null}
            {activeTab === "settings" ? <SettingsPanel draft={draft} me={me} readOnly={readOnly} onChange={patch} /> : null}
          </div>
        </aside>
      </div>
    </section>
  );
}
