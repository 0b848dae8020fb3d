/** A save refused because the tool was saved meanwhile: the draft stays, and the user picks whose version wins. */
import { useState } from "preact/hooks";
import type { Tool } from "../lib/api.ts";
import { DiffView } from "./diff-view.tsx";

export function SaveConflict(props: { latest: Tool; basedOn: number; mine: string; saving: boolean; onOverwrite(): void; onTakeTheirs(): void }) {
  const [comparing, setComparing] = useState(false);
  const { latest } = props;
  return (
    <div class="error-box save-conflict" role="region" aria-label="Save conflict">
      <p>
        <strong>Not saved: the tool changed meanwhile.</strong> It was saved as version {latest.version} elsewhere (another tab, window or client)
        while you were editing version {props.basedOn}. Your changes are still in the editor.
      </p>
      <div class="actions left">
        <button type="button" class="primary" disabled={props.saving} onClick={props.onOverwrite}>Overwrite with my version</button>
        <button type="button" disabled={props.saving} onClick={props.onTakeTheirs}>Discard mine and load theirs</button>
        <button type="button" class="link" aria-expanded={comparing} onClick={() => setComparing(!comparing)}>Compare theirs with mine</button>
      </div>
      {comparing ? <><p class="muted small">Left: version {latest.version} (theirs). Right: the editor (yours).</p><DiffView before={latest.code ?? ""} after={props.mine} language={latest.language} /></> : null}
    </div>
  );
}
