/**
 * Why: the sandbox links a tool without asking back (issue 13) when the host ships the tool's
 * module set with the job: every `plugin:` / `lib:` module it imports statically, transitively,
 * resolved for this caller (null: not available to them). The worker still applies every import
 * rule itself; a specifier missing here (a form this scan does not see) still reaches the host
 * through the pool's resolve round trip, so the set is a shortcut, never a second rule.
 */
import { listImports } from "../../client-modules/index.ts";
import { MAX_MODULES_PER_RUN } from "../../sandbox/protocol.ts";

/** Import lists of recent sources (a saved tool runs again and again); small sources only. */
const listed = new Map<string, readonly string[]>();
const MAX_LISTED = 256;
const MAX_LISTED_CHARS = 65_536;

function staticImports(source: string): readonly string[] {
  // Nothing to resolve unless the text names a plugin: or lib: module.
  if (!source.includes("plugin:") && !source.includes("lib:")) return [];
  const cached = listed.get(source);
  if (cached !== undefined) {
    listed.delete(source);
    listed.set(source, cached);
    return cached;
  }
  const scan = listImports(source);
  const specifiers = scan.ok ? [...new Set(scan.imports.filter((site) => !site.dynamic).map((site) => site.specifier))] : [];
  if (source.length <= MAX_LISTED_CHARS) {
    listed.set(source, specifiers);
    if (listed.size > MAX_LISTED) listed.delete(listed.keys().next().value as string);
  }
  return specifiers;
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
