/**
 * What a person may lend a connection, and reading their choice. Threat: a consent form (or a
 * forged POST) lending more than the person holds, or an unknown scope. Guarantee: only the
 * person's own permissions (grouped by plugin — the "areas"), `plugin.<name>.*` for an area of a
 * loaded plugin, `area:<plugin>:<area>` for a declared area group (expanded to its targets' scope
 * ids, plugin-areas.ts), and user tools yes/no are accepted; `knot.mcp` is always included (a connection
 * exists to use MCP). What the connection may do stays the user's grants ∩ these scopes.
 */
import { KnotError } from "../errors.ts";
import { BUILTIN_PERMISSIONS, type Principal } from "../identity/principal.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { TokenScopes } from "../store/store.ts";
import { RUN_USER_TOOLS_SCOPE } from "../tools/tool-runner.ts";
import { pluginAreas, type AreaGroup } from "../plugins/plugin-areas.ts";

export interface ConsentArea {
  readonly plugin: string;
  readonly description: string;
  /** `plugin.<name>.*`: the whole area, including its ungated tools. */
  readonly glob: string;
  /** The person's permissions in this area. */
  readonly permissions: readonly string[];
  /** The plugin's handlers and MCP tools grouped by their declared `area` (plugin-areas.ts). */
  readonly groups: readonly AreaGroup[];
}

export interface ConsentChoice {
  readonly scopes: TokenScopes;
  readonly expiresInDays: number | null;
}

export const EXPIRY_CHOICES_DAYS: readonly (number | null)[] = Object.freeze([1, 7, 30, 90, null]);

export function consentAreas(principal: Principal, registry: PluginRegistry): ConsentArea[] {
  return [...registry.loaded.values()].map((plugin) => {
    const own = principal.user.isAdmin ? plugin.manifest.permissions : principal.granted.filter((id) => id.startsWith(`plugin.${plugin.name}.`));
    return { plugin: plugin.name, description: plugin.manifest.description, glob: `plugin.${plugin.name}.*`, permissions: [...own], groups: pluginAreas(plugin.name, plugin.manifest) };
  });
}

/** The consent form's body → scopes, or INVALID_ARGUMENT naming the field. */
export function parseConsent(body: Record<string, unknown>, areas: readonly ConsentArea[]): ConsentChoice {
  const offered = new Set(areas.flatMap((a) => [a.glob, ...a.permissions]));
  // An area group is lent as the scope ids of its targets (still gated by the person's grants).
  const groups = new Map(areas.flatMap((a) => a.groups.map((g) => [g.id, g.scopes] as const)));
  const chosen = body.permissions ?? [];
  if (!Array.isArray(chosen) || chosen.some((p) => typeof p !== "string")) {
    throw new KnotError("INVALID_ARGUMENT", "permissions must be a list of permission ids or plugin areas (plugin.<name>.*)", { where: "permissions" });
  }
  const notOffered = (chosen as string[]).find((p) => !offered.has(p) && !groups.has(p));
  if (notOffered !== undefined) throw new KnotError("INVALID_ARGUMENT", `"${notOffered}" is not one of your permissions or areas`, { where: "permissions" });
  for (const field of ["userTools", "write"] as const) {
    if (typeof body[field] !== "boolean") throw new KnotError("INVALID_ARGUMENT", `${field} must be true or false`, { where: field });
  }
  const days = body.expiresInDays ?? null;
  if (!EXPIRY_CHOICES_DAYS.includes(days as number | null)) {
    throw new KnotError("INVALID_ARGUMENT", `expiresInDays must be one of ${EXPIRY_CHOICES_DAYS.map(String).join(", ")}`, { where: "expiresInDays" });
  }
  const tools = body.userTools === true ? [RUN_USER_TOOLS_SCOPE, BUILTIN_PERMISSIONS.toolsAuthor] : [];
  const lent = (chosen as string[]).flatMap((p) => groups.get(p) ?? [p]);
  const permissions = [...new Set([BUILTIN_PERMISSIONS.mcpUse, ...lent, ...tools])];
  return { scopes: { permissions, write: body.write === true }, expiresInDays: days as number | null };
}
