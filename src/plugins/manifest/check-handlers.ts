/**
 * `[[tool.knot.handlers]]` (addressable by URL, call() and the loopback) and
 * `[[tool.knot.pages]]` (UI pages served by a handler).
 *
 * A handler that changes things says so (`write = true`, or `destructive = true`, which implies
 * it): read-only tokens are refused it on every path. Such a handler must declare a `permission`,
 * so that changing things is always something an admin granted (the CMS seed's rule).
 */
import type { HandlerDecl, PageDecl } from "../manifest-types.ts";
import { GUEST_CAPS } from "../../../sandbox/guest/bindings.ts";
import { checkKnownKeys, describeValue, JS_IDENTIFIER, readBool, readString, readTableArray } from "./checks.ts";
import type { TomlTable } from "./checks.ts";
import { readArea, readPermissionRef } from "./declaration-context.ts";
import type { DeclarationContext } from "./declaration-context.ts";
import { formatKeyPath } from "./key-path.ts";
import type { KeyPath } from "./key-path.ts";

const HANDLER_KEYS = ["handler", "permission", "write", "destructive", "area"];
/** `default`, `menu_label` and `icon` are checked by check-navigation.ts. */
const PAGE_KEYS = ["path", "handler", "label", "permission", "default", "menu_label", "icon"];
/** "/" then a name: the page is served at `/api/pages/<plugin>/<path without its first "/">`, one non-empty segment. */
const PAGE_PATH = /^\/[A-Za-z0-9_-][A-Za-z0-9/_-]*$/;

/** A named export of main.js that a call can address: at most the length a call's handler name may have. */
const HANDLER_NAME = new RegExp(`^(?=.{1,${GUEST_CAPS.nameChars}}$)${JS_IDENTIFIER.source.slice(1)}`);
export const HANDLER_NAME_RULE = { pattern: HANDLER_NAME, patternName: `a named export of main.js ([A-Za-z_$][A-Za-z0-9_$]*, at most ${GUEST_CAPS.nameChars} characters)` };

export function checkHandlers(knot: TomlTable, path: KeyPath, context: DeclarationContext): HandlerDecl[] {
  const handlers: HandlerDecl[] = [];
  const firstSeen = new Map<string, KeyPath>();
  for (const element of readTableArray(knot, "handlers", path, context.report)) {
    checkKnownKeys(element.table, HANDLER_KEYS, element.path, context.report);
    const handler = readString(element.table, "handler", element.path, context.report, { required: true, ...HANDLER_NAME_RULE });
    const permission = readPermissionRef(element.table, element.path, context);
    const changes = readChangeMarks(element.table, element.path, context);
    const area = readArea(element.table, element.path, context);
    if (changes !== null && permission === null) requirePermission(element.path, changes, "handler", context);
    if (handler === undefined || permission === undefined) continue;
    const earlier = firstSeen.get(handler);
    if (earlier) {
      context.report([...element.path, "handler"], `repeats ${describeValue(handler)} (already declared at ${formatKeyPath(earlier)})`);
      continue;
    }
    firstSeen.set(handler, element.path);
    handlers.push({ handler, permission, write: changes !== null, destructive: changes === "destructive", area, line: context.lineOf(element.path) });
  }
  return handlers;
}

/**
 * `write` / `destructive` of a handler or MCP tool: null when it changes nothing, else the key
 * that says it does (`destructive` implies `write`).
 */
export function readChangeMarks(table: TomlTable, path: KeyPath, context: DeclarationContext): "write" | "destructive" | null {
  const destructive = readBool(table, "destructive", path, context.report) ?? false;
  const write = readBool(table, "write", path, context.report) ?? false;
  return destructive ? "destructive" : write ? "write" : null;
}

/** A declaration that changes things must be gated: the error names the key that made it so. */
export function requirePermission(path: KeyPath, key: "write" | "destructive", what: string, context: DeclarationContext): void {
  context.report([...path, key], `= true needs a permission: a ${what} that changes things must declare permission = "…" (one of tool.knot.permissions)`);
}

/** Pages are rendered on GET: that a page's handler changes nothing is check-change-marks.ts's to say. */
export function checkPages(knot: TomlTable, path: KeyPath, context: DeclarationContext): PageDecl[] {
  const pages: PageDecl[] = [];
  const seenPaths = new Set<string>();
  for (const element of readTableArray(knot, "pages", path, context.report)) {
    checkKnownKeys(element.table, PAGE_KEYS, element.path, context.report);
    const pagePath = readPagePath(element.table, element.path, context);
    const handler = readString(element.table, "handler", element.path, context.report, { required: true, ...HANDLER_NAME_RULE });
    const label = readString(element.table, "label", element.path, context.report, { required: true, nonEmpty: true });
    const permission = readPermissionRef(element.table, element.path, context);
    if (pagePath !== undefined) {
      if (seenPaths.has(pagePath)) context.report([...element.path, "path"], `repeats ${describeValue(pagePath)}`);
      seenPaths.add(pagePath);
    }
    if (pagePath === undefined || handler === undefined || label === undefined || permission === undefined) continue;
    pages.push({ path: pagePath, handler, label, permission, line: context.lineOf(element.path) });
  }
  return pages;
}

function readPagePath(table: TomlTable, path: KeyPath, context: DeclarationContext): string | undefined {
  const value = readString(table, "path", path, context.report, { required: true });
  if (value === undefined) return undefined;
  if (value.includes("..")) {
    context.report([...path, "path"], `must not contain ".." (got ${describeValue(value)})`);
    return undefined;
  }
  if (!PAGE_PATH.test(value)) {
    context.report([...path, "path"], `must be "/" and a name, using only letters, digits, "/", "_" and "-" (got ${describeValue(value)})`);
    return undefined;
  }
  return value;
}
