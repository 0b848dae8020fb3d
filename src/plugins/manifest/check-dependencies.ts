/**
 * `dependencies = ["other>=1.2", "cms"]`: plugins this one needs loaded, each with an optional
 * semver range. Only the form is checked here; the loader checks them against what loaded.
 */
import { validRange } from "semver";
import { PLUGIN_DEPENDENCY } from "../../../sandbox/guest/names.ts";
import type { DependencyDecl } from "../manifest-types.ts";
import { describeValue } from "./checks.ts";
import type { TomlTable } from "./checks.ts";
import type { DeclarationContext } from "./declaration-context.ts";
import type { KeyPath } from "./key-path.ts";


export function checkDependencies(knot: TomlTable, path: KeyPath, context: DeclarationContext): DependencyDecl[] {
  const value = knot["dependencies"];
  if (value === undefined) return [];
  const key = [...path, "dependencies"];
  if (!Array.isArray(value)) {
    context.report(key, `must be an array of strings like "other>=1.2" (got ${describeValue(value)})`);
    return [];
  }
  const out: DependencyDecl[] = [];
  value.forEach((entry: unknown, index) => {
    const entryPath = [...key, index];
    const match = typeof entry === "string" ? PLUGIN_DEPENDENCY.exec(entry.trim()) : null;
    if (typeof entry !== "string" || !match) {
      context.report(entryPath, `must be a plugin name with an optional semver range like "other>=1.2" (got ${describeValue(entry)})`);
      return;
    }
    const plugin = match[1]!;
    const range = match[2]!.trim() === "" ? "*" : match[2]!.trim();
    if (validRange(range) === null) context.report(entryPath, `has ${describeValue(range)}, which is not a semver range like ">=1.2"`);
    else if (plugin === context.pluginName) context.report(entryPath, "names this plugin itself");
    else if (out.some((d) => d.plugin === plugin)) context.report(entryPath, `repeats the plugin "${plugin}"`);
    else out.push({ plugin, range, line: context.lineOf(entryPath) });
  });
  return out;
}
