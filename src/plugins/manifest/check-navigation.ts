/**
 * The navigation keys of `[tool.knot]` (knot's plugin surface): `icons`, `logo_light` /
 * `logo_dark`, `[[tool.knot.menus]]`, `[[tool.knot.field_handlers]]` and the navigation keys of
 * pages (`default`, `menu_label`, `icon`). Files are only named here; the loader reads, bounds
 * and sanitises them (plugin-assets.ts).
 */
import type { FieldHandlerDecl, HandlerDecl, MenuDecl, PageDecl } from "../manifest-types.ts";
import { checkKnownKeys, describeValue, readBool, readString, readTableArray, readUniqueStrings } from "./checks.ts";
import type { TomlTable } from "./checks.ts";
import { HANDLER_NAME_RULE } from "./check-handlers.ts";
import { readPermissionRef } from "./declaration-context.ts";
import type { DeclarationContext } from "./declaration-context.ts";
import type { KeyPath } from "./key-path.ts";

/** Folders and a file name of letters, digits, `_` and `-`, ending in `.svg`: no `..`, no absolute path. */
export const SVG_PATH = /^(?:[A-Za-z0-9_-]+\/)*[A-Za-z0-9_-]+\.svg$/;
const SVG_PATH_RULE = { pattern: SVG_PATH, patternName: 'a relative .svg path in the plugin folder like "icons/chart.svg"' };
/** The `[tool.knot]` keys this file (and check-dependencies.ts) adds. */
export const NAVIGATION_KEYS = ["icons", "logo_light", "logo_dark", "menus", "field_handlers", "dependencies"];
const MENU_KEYS = ["label", "url", "permission", "icon"];
const FIELD_HANDLER_KEYS = ["label", "handler", "permission"];
/** A same-server path (never `//host`, which a browser reads as another site) or an http(s) URL. */
const MENU_URL = /^(?:\/(?![/\\])|https?:\/\/[^\s/\\?#@]+)[^\s\\]*$/;

export interface Navigation {
  readonly icons: string[];
  readonly logoLight: string | null;
  readonly logoDark: string | null;
  readonly menus: MenuDecl[];
  readonly fieldHandlers: FieldHandlerDecl[];
  readonly pages: PageDecl[];
}

export function checkNavigation(
  knot: TomlTable,
  path: KeyPath,
  context: DeclarationContext,
  handlers: readonly HandlerDecl[],
  pages: readonly PageDecl[],
): Navigation {
  const icons = readUniqueStrings(knot, "icons", path, context.report, SVG_PATH_RULE).filter((e) => e.valid).map((e) => e.value);
  const logoLight = readString(knot, "logo_light", path, context.report, SVG_PATH_RULE) ?? null;
  const logoDark = readString(knot, "logo_dark", path, context.report, SVG_PATH_RULE) ?? null;
  return {
    icons, logoLight, logoDark,
    menus: checkMenus(knot, path, context, icons),
    fieldHandlers: checkFieldHandlers(knot, path, context, handlers),
    pages: withPageNavigation(knot, path, context, icons, pages),
  };
}

function readIconRef(table: TomlTable, path: KeyPath, context: DeclarationContext, icons: readonly string[]): string | null | undefined {
  const icon = readString(table, "icon", path, context.report, SVG_PATH_RULE);
  if (icon === undefined) return table["icon"] === undefined ? null : undefined;
  if (!icons.includes(icon)) {
    context.report([...path, "icon"], `names ${describeValue(icon)}, which is not in tool.knot.icons (declare every icon file there)`);
    return undefined;
  }
  return icon;
}

function checkMenus(knot: TomlTable, path: KeyPath, context: DeclarationContext, icons: readonly string[]): MenuDecl[] {
  const menus: MenuDecl[] = [];
  const seen = new Set<string>();
  for (const element of readTableArray(knot, "menus", path, context.report)) {
    checkKnownKeys(element.table, MENU_KEYS, element.path, context.report);
    const label = readString(element.table, "label", element.path, context.report, { required: true, nonEmpty: true });
    const url = readString(element.table, "url", element.path, context.report, {
      required: true, pattern: MENU_URL, patternName: 'a path starting with "/" or an http:// or https:// URL',
    });
    const permission = readPermissionRef(element.table, element.path, context);
    const icon = readIconRef(element.table, element.path, context, icons);
    if (url !== undefined) {
      if (seen.has(url)) context.report([...element.path, "url"], `repeats ${describeValue(url)}: each menu links somewhere else`);
      else seen.add(url);
    }
    if (label === undefined || url === undefined || permission === undefined || icon === undefined) continue;
    menus.push({ label, url, permission, icon, line: context.lineOf(element.path) });
  }
  return menus;
}

function checkFieldHandlers(knot: TomlTable, path: KeyPath, context: DeclarationContext, handlers: readonly HandlerDecl[]): FieldHandlerDecl[] {
  const out: FieldHandlerDecl[] = [];
  for (const element of readTableArray(knot, "field_handlers", path, context.report)) {
    checkKnownKeys(element.table, FIELD_HANDLER_KEYS, element.path, context.report);
    const label = readString(element.table, "label", element.path, context.report, { required: true, nonEmpty: true });
    let handler = readString(element.table, "handler", element.path, context.report, { required: true, ...HANDLER_NAME_RULE });
    if (handler !== undefined && !handlers.some((h) => h.handler === handler)) {
      context.report([...element.path, "handler"], `names ${describeValue(handler)}, which is not declared in [[tool.knot.handlers]]`);
      handler = undefined;
    }
    const permission = readPermissionRef(element.table, element.path, context);
    if (label === undefined || handler === undefined || permission === undefined) continue;
    out.push({ label, handler, permission, line: context.lineOf(element.path) });
  }
  return out;
}

/** Adds `default`, `menu_label` and `icon` to the pages checkPages accepted (matched by path). */
function withPageNavigation(knot: TomlTable, path: KeyPath, context: DeclarationContext, icons: readonly string[], pages: readonly PageDecl[]): PageDecl[] {
  const value = knot["pages"];
  if (!Array.isArray(value)) return [...pages];
  const extras = new Map<string, Pick<PageDecl, "default" | "menuLabel" | "icon">>();
  let firstDefault: KeyPath | null = null;
  value.forEach((table: unknown, index) => {
    if (typeof table !== "object" || table === null || Array.isArray(table)) return; // reported by checkPages
    const element = table as TomlTable;
    const elementPath = [...path, "pages", index];
    const isDefault = readBool(element, "default", elementPath, context.report);
    const menuLabel = readString(element, "menu_label", elementPath, context.report, { nonEmpty: true });
    const icon = readIconRef(element, elementPath, context, icons);
    if (isDefault) {
      if (firstDefault) context.report([...elementPath, "default"], "= true is already set on another page: at most one page is the default");
      else firstDefault = elementPath;
    }
    if (typeof element["path"] === "string") {
      extras.set(element["path"], {
        ...(isDefault ? { default: true } : {}),
        ...(menuLabel !== undefined ? { menuLabel } : {}),
        ...(icon ? { icon } : {}),
      });
    }
  });
  return pages.map((page) => ({ ...page, ...extras.get(page.path) }));
}
