/** Version history: every save is a version; diff any of them against the editor, or restore one. */
import { useState } from "preact/hooks";
import { get, type Parameter } from "../lib/api.ts";
import { Empty, ErrorBox, formatTime, Loading, Modal, useAsync } from "../lib/ui.tsx";
import { DiffView } from "./diff-view.tsx";

export interface SavedVersion {
  toolId: string;
  version: number;
  savedAt: string;
  savedBy: string;
  tool: { name: string; description: string; language: "js" | "ts"; parameters: Parameter[]; code: string; sharing: string; active: boolean; kind: "tool" | "lib"; readOnly?: boolean; destructive?: boolean };
}

export function HistoryPanel(props: { toolId: string; currentVersion: number; currentCode: string; language: "js" | "ts"; currentParameters: Parameter[]; canRestore: boolean; onRestore(v: SavedVersion): void }) {
  const versions = useAsync(() => get<{ versions: SavedVersion[] }>(`/api/tools/${encodeURIComponent(props.toolId)}/versions`).then((r) => r.versions), [props.toolId, props.currentVersion]);
  const [diffing, setDiffing] = useState<SavedVersion | null>(null);
  if (versions.loading && !versions.data) return <Loading what="versions" />;
  if (versions.error) return <ErrorBox error={versions.error} title="Could not load the history" />;
  const list = versions.data ?? [];
  if (list.length === 0) return <Empty><p>No saved versions.</p></Empty>;
  return (
    <div class="history">
      <ol class="versions">
        {list.map((v) => (
          <li key={v.version} data-version={v.version}>
            <div><strong>v{v.version}</strong>{v.version === props.currentVersion ? <span class="badge">current</span> : null} <span class="muted small">{formatTime(v.savedAt)}</span></div>
            <div class="row-actions">
              <button type="button" onClick={() => setDiffing(v)} aria-label={`Compare version ${v.version} with the editor`}>Diff</button>
              {props.canRestore ? <button type="button" onClick={() => props.onRestore(v)} aria-label={`Restore version ${v.version} into the editor`}>Restore</button> : null}
            </div>
          </li>
        ))}
      </ol>
      {diffing ? (
        <Modal title={`v${diffing.version} (left) compared with the editor (right)`} wide onClose={() => setDiffing(null)}>
          {JSON.stringify(diffing.tool.parameters) !== JSON.stringify(props.currentParameters) ? <p class="notice small">The parameters differ too; restoring brings back v{diffing.version}'s parameters.</p> : null}
          <DiffView before={diffing.tool.code} after={props.currentCode} language={props.language} />
          {props.canRestore ? (
            <div class="actions"><button type="button" class="primary" onClick={() => { props.onRestore(diffing); setDiffing(null); }}>Restore v{diffing.version} into the editor</button></div>
          ) : null}
        </Modal>
      ) : null}
    </div>
  );
}
