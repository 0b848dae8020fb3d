/**
 * `dependencies = ["other>=1.2"]`: a plugin loads only when every plugin it names has loaded in
 * a version the range accepts. Dropping one plugin can break another that needs it, so this
 * repeats until nothing more drops; each dropped plugin's problem names what it is missing.
 */
import { satisfies } from "semver";
import type { LoadedPlugin, PluginProblem } from "./registry.ts";

export function withDependenciesMet(
  plugins: readonly LoadedPlugin[],
  reject: (plugin: LoadedPlugin, problems: PluginProblem[]) => void,
): LoadedPlugin[] {
  let kept = [...plugins];
  for (;;) {
    const versions = new Map(kept.map((p) => [p.name, p.manifest.version]));
    const broken = kept.map((plugin) => ({ plugin, problems: unmet(plugin, versions) })).filter((entry) => entry.problems.length > 0);
    if (broken.length === 0) return kept;
    for (const { plugin, problems } of broken) reject(plugin, problems);
    kept = kept.filter((plugin) => !broken.some((entry) => entry.plugin === plugin));
  }
}

function unmet(plugin: LoadedPlugin, versions: ReadonlyMap<string, string>): PluginProblem[] {
  return plugin.manifest.dependencies.flatMap((dependency) => {
    const version = versions.get(dependency.plugin);
    const wanted = dependency.range === "*" ? `plugin "${dependency.plugin}"` : `plugin "${dependency.plugin}" ${dependency.range}`;
    const where = { code: "DEPENDENCY_MISSING", where: `${plugin.name}: tool.knot.dependencies`, line: dependency.line };
    if (version === undefined) {
      return [{ ...where, message: `plugin "${plugin.name}": needs ${wanted} (main.js line ${dependency.line}), which is not loaded (not installed, disabled or failed)` }];
    }
    if (!satisfies(version, dependency.range, { includePrerelease: true })) {
      return [{ ...where, message: `plugin "${plugin.name}": needs ${wanted} (main.js line ${dependency.line}), but version ${version} is installed` }];
    }
    return [];
  });
}
