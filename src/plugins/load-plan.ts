/**
 * Which plugins may be imported, decided from their manifests before any plugin code runs:
 * dependencies first (a plugin whose dependency fails fails too, as does one whose code already
 * imported a plugin that failed), MCP tool names settled only
 * among the plugins that pass. A collision's loser is never dropped for good here: when its
 * winner fails (now, or later at import), the next plan gives it the name.
 */
import { settleCollisions } from "./collisions.ts";
import { unmetDependencies, type DeclaredPlugin } from "./dependencies.ts";
import type { PluginProblem } from "./registry.ts";

export interface LoadPlan<T> {
  readonly kept: T[];
  readonly failed: Map<T, PluginProblem[]>;
}

/** What else fails a kept plugin given the names still loading (import-reach.ts), beyond its declared dependencies. */
export type ReachCheck<T> = (plugin: T, loading: ReadonlySet<string>) => PluginProblem[];

export function planLoad<T extends DeclaredPlugin>(plugins: readonly T[], reach: ReachCheck<T> = () => []): LoadPlan<T> {
  const dropped = new Map<T, PluginProblem[]>();
  for (;;) {
    const { kept, rejected } = settleCollisions(plugins.filter((plugin) => !dropped.has(plugin)));
    const versions = new Map(kept.map((plugin) => [plugin.name, plugin.manifest.version]));
    let changed = false;
    for (const plugin of kept) {
      const problems = [...unmetDependencies(plugin, versions), ...reach(plugin, new Set(versions.keys()))];
      if (problems.length === 0) continue;
      dropped.set(plugin, problems);
      changed = true;
    }
    if (!changed) return { kept, failed: new Map([...dropped, ...rejected]) };
  }
}
