/**
 * Why: the sandbox links a tool without asking back (issue 13) when the host ships the tool's
 * module set with the job: every `plugin:` / `lib:` module it imports statically, transitively,
 * resolved for this caller (null: not available to them). The worker still applies every import
 * rule itself; a specifier missing here (a form this scan does not see) still reaches the host
 * through the pool's resolve round trip, so the set is a shortcut, never a second rule.
 */
import { createTextMemo, listSavedImports, SOURCE_MEMO } from "../../client-modules/index.ts";
import { MAX_MODULES_PER_RUN } from "../../sandbox/protocol.ts";

/** Import lists of recent sources (a saved tool runs again and again). */
const listed = createTextMemo<readonly string[]>(SOURCE_MEMO);

function staticImports(source: string): readonly string[] {
  // Nothing to resolve unless the text names a plugin: or lib: module.
  if (!source.includes("plugin:") && !source.includes("lib:")) return [];
  return listed(source, () => {
    const scan = listSavedImports(source);
    return Object.freeze(scan.ok ? [...new Set(scan.imports.filter((site) => !site.dynamic).map((site) => site.specifier))] : []);
  });
}

/** The module set of `source`, or undefined when it imports no plugin: / lib: module. */
export function collectModuleSet(source: string, resolve: (specifier: string) => string | null): Record<string, string | null> | undefined {
  const modules: Record<string, string | null> = {};
  let count = 0;
  const pending = [...staticImports(source)];
  while (pending.length > 0 && count < MAX_MODULES_PER_RUN) {
    const specifier = pending.shift() as string;
    if (!(specifier.startsWith("plugin:") || specifier.startsWith("lib:")) || Object.hasOwn(modules, specifier)) continue;
    const resolved = resolve(specifier);
    modules[specifier] = resolved;
    count += 1;
    if (resolved !== null) pending.push(...staticImports(resolved));
  }
  return count === 0 ? undefined : modules;
}
