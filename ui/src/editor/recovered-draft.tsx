/** The offer to bring back unsaved changes kept in this tab (draft-store.ts): nothing is applied until the user chooses. */
import type { StoredDraft } from "./draft-store.ts";

export function RecoveredDraft({ kept, currentVersion, onRestore, onDiscard }: { kept: StoredDraft; currentVersion: number; onRestore(): void; onDiscard(): void }) {
  return (
    <div class="notice recovered-draft" role="region" aria-label="Unsaved changes found">
      <p>
        <strong>Unsaved changes found.</strong> This tab kept changes to this tool that were never saved (made to version {kept.version}
        {kept.version === currentVersion ? "" : `; the tool is now at version ${currentVersion}`}), for instance from before your session ended.
        The editor shows the saved version until you choose.
      </p>
      <div class="actions left">
        <button type="button" class="primary" onClick={onRestore}>Restore my unsaved changes</button>
        <button type="button" onClick={onDiscard}>Discard them</button>
      </div>
    </div>
  );
}
