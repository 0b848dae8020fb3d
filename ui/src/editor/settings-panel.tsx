/** Description, sharing, language and flags of a tool. */
import type { Me } from "../lib/api.ts";
import type { Draft } from "./draft.ts";

export function SettingsPanel({ draft, me, readOnly, onChange }: { draft: Draft; me: Me; readOnly: boolean; onChange(p: Partial<Draft>): void }) {
  const mode = draft.sharing === "private" || draft.sharing === "everyone" ? draft.sharing : "group";
  const group = mode === "group" ? draft.sharing.slice(1) : "";
  return (
    <fieldset class="settings stack" disabled={readOnly}>
      <legend class="sr-only">Settings</legend>
      <label for="tool-name">Name</label>
      <input id="tool-name" value={draft.name} onInput={(e) => onChange({ name: (e.target as HTMLInputElement).value })} />
      <label for="tool-description">Description</label>
      <textarea id="tool-description" rows={3} value={draft.description} placeholder="What it does, for assistants and people" onInput={(e) => onChange({ description: (e.target as HTMLTextAreaElement).value })} />
      <label for="tool-sharing">Sharing</label>
      <select id="tool-sharing" value={mode} onChange={(e) => {
        const v = (e.target as HTMLSelectElement).value;
        onChange({ sharing: v === "group" ? `@${group || me.groups[0] || ""}` : v });
      }}>
        <option value="private">Only me</option>
        <option value="everyone">Everyone</option>
        <option value="group">A group…</option>
      </select>
      {mode === "group" ? (
        <>
          <label for="tool-group">Group</label>
          <input id="tool-group" list="my-groups" value={group} onInput={(e) => onChange({ sharing: `@${(e.target as HTMLInputElement).value}` })} />
          <datalist id="my-groups">{me.groups.map((g) => <option key={g} value={g} />)}</datalist>
        </>
      ) : null}
      <p class="hint small">Shared tools run as the person who runs them, with their permissions — never yours.</p>
      <label for="tool-language">Language</label>
      <select id="tool-language" value={draft.language} onChange={(e) => onChange({ language: (e.target as HTMLSelectElement).value as "js" | "ts" })}>
        <option value="js">JavaScript</option>
        <option value="ts">TypeScript (types are stripped)</option>
      </select>
      <div class="checks">
        <label><input type="checkbox" checked={draft.active} onChange={(e) => onChange({ active: (e.target as HTMLInputElement).checked })} /> Active (listed to assistants)</label>
        <label><input type="checkbox" checked={draft.readOnly} onChange={(e) => onChange({ readOnly: (e.target as HTMLInputElement).checked, ...((e.target as HTMLInputElement).checked ? { destructive: false } : {}) })} /> Read-only</label>
        <label><input type="checkbox" checked={draft.destructive} onChange={(e) => onChange({ destructive: (e.target as HTMLInputElement).checked, ...((e.target as HTMLInputElement).checked ? { readOnly: false } : {}) })} /> Destructive</label>
      </div>
    </fieldset>
  );
}
