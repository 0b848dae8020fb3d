/**
 * `area = "…"` on handlers and MCP tools (the CMS seed's grouping: content, structure, design…):
 * the consent screen and `GET /api/plugins` list a plugin's targets grouped by area. A group can be
 * lent to an assistant as a whole: its `scopes` are the targets' scope ids (`plugin.<p>.<name>`),
 * which still need the person's own grants to reach anything gated.
 */
import { targetScopeId } from "../identity/plugin-gate.ts";
import { SCOPE } from "../../sandbox/guest/names.ts";
import type { PluginManifest } from "./manifest-types.ts";

export interface AreaGroup {
  readonly area: string;
  /** What a consent form sends to lend the group: `area:<plugin>:<area>`. */
  readonly id: string;
  readonly handlers: readonly string[];
  readonly mcpTools: readonly string[];
  /** Whether any target in the group changes things (`write`/`destructive`). */
  readonly write: boolean;
  readonly scopes: readonly string[];
}

export function pluginAreas(plugin: string, manifest: Pick<PluginManifest, "handlers" | "mcpTools">): AreaGroup[] {
  const byArea = new Map<string, { handlers: string[]; mcpTools: string[]; write: boolean }>();
  const entry = (area: string) => byArea.get(area) ?? byArea.set(area, { handlers: [], mcpTools: [], write: false }).get(area)!;
  for (const h of manifest.handlers) {
    if (h.area === null) continue;
    const group = entry(h.area);
    group.handlers.push(h.handler);
    group.write ||= h.write;
  }
  for (const t of manifest.mcpTools) {
    if (t.area === null) continue;
    const group = entry(t.area);
    group.mcpTools.push(t.name);
    group.write ||= t.write;
  }
  return [...byArea].sort(([a], [b]) => a.localeCompare(b)).map(([area, group]) => ({
    area, id: `area:${plugin}:${area}`, ...group,
    // Handler names may hold capitals, which scope ids cannot: those are reachable through the glob or permission only.
    scopes: [...new Set([...group.handlers, ...group.mcpTools].map((name) => targetScopeId({ plugin, name })))].filter((id) => SCOPE.test(id)),
  }));
}
