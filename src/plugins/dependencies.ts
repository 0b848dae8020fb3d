/**
 * `dependencies = ["other>=1.2"]`: a plugin loads only when every plugin it names loads too, in a
 * version the range accepts. Read from the manifests alone, so it is decided before any plugin
 * code is imported (load-plan.ts repeats it until nothing more drops).
 */
import { satisfies } from "semver";
import type { PluginManifest } from "./manifest-types.ts";
import type { PluginProblem } from "./registry.ts";

/** What the load plan knows of a plugin before importing it. */
export interface DeclaredPlugin {
  readonly name: string;
  readonly manifest: PluginManifest;
}

/** `plugin`'s declared dependencies that `versions` (the plugins still loading) does not meet. */
export function unmetDependencies(plugin: DeclaredPlugin, versions: ReadonlyMap<string, string>): PluginProblem[] {
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
