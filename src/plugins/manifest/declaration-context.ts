/**
 * What the declaration validators (handlers, MCP tools, pages) share: where to report,
 * where each declaration sits in main.js, and the plugin's declared permission ids, which
 * every `permission = "…"` must name and which are qualified to `plugin.<name>.<id>` here.
 */
import { describeValue, readString } from "./checks.ts";
import type { Report, TomlTable } from "./checks.ts";
import type { KeyPath } from "./key-path.ts";

export interface DeclarationContext {
  readonly pluginName: string;
  readonly report: Report;
  readonly lineOf: (path: KeyPath) => number;
  /** Ids as written in `tool.knot.permissions`. */
  readonly declaredPermissions: ReadonlySet<string>;
}

export function qualifyPermission(pluginName: string, id: string): string {
  return `plugin.${pluginName}.${id}`;
}

/** The qualified gate of a declaration: null when ungated, undefined when the key is wrong. */
export function readPermissionRef(table: TomlTable, path: KeyPath, context: DeclarationContext): string | null | undefined {
  if (table["permission"] === undefined) return null;
  const id = readString(table, "permission", path, context.report);
  if (id === undefined) return undefined;
  if (!context.declaredPermissions.has(id)) {
    const declared = [...context.declaredPermissions];
    const known = declared.length > 0 ? `declared: ${declared.join(", ")}` : "none are declared";
    context.report([...path, "permission"], `names ${describeValue(id)}, which is not in tool.knot.permissions (${known})`);
    return undefined;
  }
  return qualifyPermission(context.pluginName, id);
}

/** `area = "content"`: the grouping (the CMS seed's) the consent screen and `GET /api/plugins` use; null when absent. */
export const AREA_RULE = { pattern: /^[a-z][a-z0-9_-]{0,31}$/, patternName: "an area name ([a-z][a-z0-9_-]*, at most 32 characters)" };

export function readArea(table: TomlTable, path: KeyPath, context: DeclarationContext): string | null {
  return readString(table, "area", path, context.report, AREA_RULE) ?? null;
}
