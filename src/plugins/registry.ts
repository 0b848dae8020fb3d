import type { ClientModuleSet } from "../../client-modules/index.ts";
import type { HandlerDecl, McpToolDecl, PageDecl, PluginManifest } from "./manifest-types.ts";

export type HandlerFunction = (request: PluginRequest) => unknown;

/** The one argument every plugin handler takes (docs/plugins.md "Handlers"). */
export interface PluginRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Record<string, unknown>;
  readonly config: Record<string, unknown>;
  readonly user: import("../identity/principal.ts").UserData;
}

export interface LoadedPlugin {
  readonly name: string;
  readonly dir: string;
  readonly manifest: PluginManifest;
  readonly config: Readonly<Record<string, unknown>>;
  readonly clientModules: ClientModuleSet | null;
  /** Sanitised SVG icons and logos by relative path (plugin-assets.ts). */
  readonly assets: ReadonlyMap<string, string>;
  /** `libs/<stem>.js` → its `[tool.knot.lib]` version, or null when it declares none. */
  readonly libs: ReadonlyMap<string, string | null>;
  /** Exported functions of main.js (or functions of its peers), by name. */
  readonly functions: ReadonlyMap<string, HandlerFunction>;
  /** The plugin's peers (`bin/*`), or null for a main.js-only plugin. */
  readonly peers: import("./peers/plugin-peers.ts").PluginPeers | null;
}

export interface PluginProblem {
  readonly code: string;
  readonly message: string;
  readonly where?: string;
  readonly line?: number;
}

export interface FailedPlugin {
  readonly name: string;
  readonly dir: string;
  readonly reason: string;
  readonly problems: readonly PluginProblem[];
}

export interface ResolvedHandler {
  readonly plugin: LoadedPlugin;
  readonly decl: HandlerDecl;
  readonly fn: HandlerFunction;
}

export interface ResolvedMcpTool {
  readonly plugin: LoadedPlugin;
  readonly decl: McpToolDecl;
  readonly fn: HandlerFunction;
}

export interface ResolvedPage {
  readonly plugin: LoadedPlugin;
  readonly decl: PageDecl;
  readonly fn: HandlerFunction;
}

/** The result of loading a plugins folder: what loaded, what failed and why, and warnings. */
export class PluginRegistry {
  readonly root: string;
  readonly loaded: ReadonlyMap<string, LoadedPlugin>;
  readonly failed: readonly FailedPlugin[];
  readonly warnings: readonly string[];
  /** Plugins the server config switches off (`enabled = false`): nothing of theirs is reachable. */
  readonly disabled: readonly string[];
  readonly #tools: ReadonlyMap<string, ResolvedMcpTool>;

  constructor(root: string, loaded: LoadedPlugin[], failed: FailedPlugin[], warnings: string[], disabled: string[] = []) {
    this.root = root;
    this.disabled = disabled;
    this.loaded = new Map(loaded.map((p) => [p.name, p]));
    this.failed = failed;
    this.warnings = warnings;
    const tools = new Map<string, ResolvedMcpTool>();
    for (const plugin of loaded) {
      for (const decl of plugin.manifest.mcpTools) tools.set(decl.name, { plugin, decl, fn: plugin.functions.get(decl.handler)! });
    }
    this.#tools = tools;
  }

  /** A declared `[[tool.knot.handlers]]` entry, or null: only those are addressable. */
  handler(pluginName: string, fn: string): ResolvedHandler | null {
    const plugin = this.loaded.get(pluginName);
    const decl = plugin?.manifest.handlers.find((h) => h.handler === fn);
    const func = decl && plugin?.functions.get(decl.handler);
    return plugin && decl && func ? { plugin, decl, fn: func } : null;
  }

  mcpTool(name: string): ResolvedMcpTool | null {
    return this.#tools.get(name) ?? null;
  }

  /** Plugin tools in a stable order: by plugin name, then declaration order. */
  mcpTools(): ResolvedMcpTool[] {
    return [...this.#tools.values()];
  }

  pages(): ResolvedPage[] {
    return [...this.loaded.values()].flatMap((plugin) =>
      plugin.manifest.pages.map((decl) => ({ plugin, decl, fn: plugin.functions.get(decl.handler)! })));
  }

  /** Every importable client module for user tools: specifier → JS source. */
  clientModule(specifier: string): string | null {
    const name = specifier.slice("plugin:".length).split("/")[0] ?? "";
    return this.loaded.get(name)?.clientModules?.modules.get(specifier) ?? null;
  }

  /** Stops every plugin's peers (on server close). */
  async close(): Promise<void> {
    await Promise.all([...this.loaded.values()].map((p) => p.peers?.stop()));
  }

  clientModuleSpecifiers(): Set<string> {
    return new Set([...this.loaded.values()].flatMap((p) => p.clientModules?.specifiers ?? []));
  }
}
