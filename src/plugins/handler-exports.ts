/**
 * Every declared handler (of `handlers`, `mcp_tools` and `pages`) must be an exported function
 * of main.js or a function of the plugin's peers. Checked twice: by name from main.js's syntax
 * before any plugin code runs (so a plugin that must fail never runs, nor do plugins importing it),
 * and by value once main.js is imported (an export that is no function, or hides behind
 * `export * from`).
 */
import type { PluginManifest } from "./manifest-types.ts";
import type { PluginProblem } from "./registry.ts";

interface DeclaredHandler {
  readonly handler: string;
  readonly line: number;
  readonly key: string;
}

export function declaredHandlers(manifest: PluginManifest): DeclaredHandler[] {
  return [
    ...manifest.handlers.map((d) => ({ handler: d.handler, line: d.line, key: "tool.knot.handlers" })),
    ...manifest.mcpTools.map((d) => ({ handler: d.handler, line: d.line, key: "tool.knot.mcp_tools" })),
    ...manifest.pages.map((d) => ({ handler: d.handler, line: d.line, key: "tool.knot.pages" })),
  ];
}

export function notExported(plugin: string, declared: DeclaredHandler, hasPeers: boolean): PluginProblem {
  const { handler, line, key } = declared;
  return {
    code: "METADATA_INVALID", where: `${plugin}: ${key}.handler`, line,
    message: `plugin "${plugin}": ${key} handler "${handler}" (main.js line ${line}) is not an exported function of main.js${hasPeers ? " nor a function of its peers" : ""}`,
  };
}

/**
 * Before import: the declared handlers that are certainly missing. `exported` is main.js's named
 * exports by syntax (null when the syntax cannot say, or there is no main.js: `[]`).
 */
export function missingByName(plugin: string, manifest: PluginManifest, exported: ReadonlySet<string> | null, peerHas: ((name: string) => boolean) | null): PluginProblem[] {
  if (exported === null) return [];
  return declaredHandlers(manifest)
    .filter((declared) => !exported.has(declared.handler) && !(peerHas?.(declared.handler) ?? false))
    .map((declared) => notExported(plugin, declared, peerHas !== null));
}
