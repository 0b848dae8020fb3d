/**
 * The tool's lib pins: each `lib:<name>` import is fixed to one lib and version when the tool is
 * saved, so nobody can swap code in by renaming or re-creating a lib. The panel shows what each
 * pin points at now (owner, current name, newest version, whether it still works for you), and
 * the owner's "Update libs" moves the pins to the newest versions (a new version of the tool).
 */
import { useState } from "preact/hooks";
import { api, get, type Diagnostic, type LibPinStatus, type Tool } from "../lib/api.ts";
import { asApiError, Empty, ErrorBox, Loading, useAsync } from "../lib/ui.tsx";
import type { ApiError } from "../lib/api.ts";

const STATUS_TEXT: Record<LibPinStatus["status"], string> = {
  ok: "pinned, newest version",
  outdated: "pinned; a newer version exists",
  deleted: "the pinned lib was deleted: runs fail until libs are updated",
  unreadable: "not shared with you: runs fail for you",
  "version-unreadable": "this version was saved before it was shared with you: runs fail for you",
  "version-missing": "the pinned version is gone: runs fail until libs are updated",
};

export function LibsPanel(props: { tool: Tool; dirty: boolean; onUpdated(tool: Tool, note: string): void }) {
  const pins = useAsync(() => get<{ pins: LibPinStatus[] }>(`/api/tools/${encodeURIComponent(props.tool.id)}/libs`).then((r) => r.pins), [props.tool.id, props.tool.version]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [problems, setProblems] = useState<Diagnostic[]>([]);

  const update = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await api<{ tool: Tool; changed: boolean; diagnostics: Diagnostic[] }>("POST", `/api/tools/${encodeURIComponent(props.tool.id)}/libs`);
      setProblems(res.diagnostics);
      props.onUpdated(res.tool, res.changed ? `Libs updated: saved as version ${res.tool.version}.` : "Libs are already pinned to their newest versions.");
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  if (pins.loading && !pins.data) return <Loading what="lib pins" />;
  if (pins.error) return <ErrorBox error={pins.error} title="Could not load the lib pins" />;
  const list = pins.data ?? [];
  return (
    <div class="lib-pins stack">
      {list.length === 0 ? <Empty><p>This {props.tool.kind} imports no libs (or none is pinned yet).</p></Empty> : (
        <ul class="pins" aria-label="Lib pins">
          {list.map((pin) => (
            <li key={pin.name} data-pin={pin.name} data-status={pin.status}>
              <div><code>lib:{pin.name}</code> → {pin.owner ? <><strong>{pin.owner}</strong>'s <code>{pin.libName}</code> </> : null}<span class="badge">v{pin.version}</span></div>
              <div class={pin.status === "ok" || pin.status === "outdated" ? "muted small" : "notice small"}>
                {STATUS_TEXT[pin.status]}{pin.status === "outdated" && pin.latestVersion !== null ? ` (v${pin.latestVersion})` : ""}
              </div>
            </li>
          ))}
        </ul>
      )}
      <p class="hint small">Saving keeps these pins; a new import is pinned when you save. A lib shared by several people is imported as <code>lib:owner__name</code>.</p>
      {props.tool.mine ? (
        <div class="actions">
          <button type="button" onClick={update} disabled={busy || props.dirty} title={props.dirty ? "Save or discard your changes first" : "Pin every lib to its newest version"}>{busy ? "Updating…" : "Update libs"}</button>
        </div>
      ) : null}
      <ErrorBox error={error} title="Could not update the libs" />
      {problems.length > 0 ? <ul class="problems">{problems.map((d, i) => <li key={i} class={`diag diag-${d.severity}`}>{d.message}</li>)}</ul> : null}
    </div>
  );
}
