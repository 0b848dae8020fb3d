/**
 * Resolves the pool's specifiers for plugin code, so plain `import` syntax composes plugins:
 *   knot:tool | knot:identity | knot:plugin   → the host's modules for plugin code
 *   plugin:<name>                              → that plugin's main.js
 *   plugin:<name>/<stem>                       → that plugin's libs/<stem>.js (never its client exports)
 *   plugin:<peer name>                         → async proxies of a peer's functions (when no main.js answers that name)
 * Node 24's `module.registerHooks` is synchronous and in-thread. The hook is process-wide, so each
 * plugins folder registers its loaded plugins here and an import resolves against the folder that
 * holds the importing file: two hosts in one process never see each other's plugins. Each
 * `plugin:` import is recorded with the plugin folder that made it (pluginImportSites), so the
 * loader can fail the importers of a plugin that fails after they imported it.
 */
import fs from "node:fs";
import { registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PLUGIN_SPECIFIER } from "../../sandbox/guest/names.ts";
import { PEER_MODULE_SCHEME, peerModuleSource, peerModuleUrl } from "./peers/peer-modules.ts";

const KNOT_MODULES: Record<string, string> = {
  "knot:tool": new URL("./knot/tool.ts", import.meta.url).href,
  "knot:identity": new URL("./knot/identity.ts", import.meta.url).href,
  "knot:plugin": new URL("./knot/plugin.ts", import.meta.url).href,
  "knot:events": new URL("../events/knot-events.ts", import.meta.url).href,
};

/** plugins root (absolute, with trailing separator) → loaded plugin names */
const roots = new Map<string, Set<string>>();

/** A `plugin:` import some plugin's code made: `importer` is the plugin folder holding `file`. */
export interface PluginImportSite {
  readonly importer: string;
  readonly specifier: string;
  /** The plugin or peer name the specifier names. */
  readonly name: string;
  readonly file: string;
}

/**
 * plugins root → every `plugin:` import resolved under it. Kept across loads of one root: Node
 * caches a module for good, so a reload re-resolves nothing and the first load's sites stay true.
 */
const importSites = new Map<string, PluginImportSite[]>();
let installed = false;

export function registerPluginRoot(root: string, loaded: Iterable<string>): void {
  install();
  roots.set(withSep(path.resolve(root)), new Set(loaded));
}

/** The `plugin:` imports plugin code under `root` has made so far (load order). */
export function pluginImportSites(root: string): readonly PluginImportSite[] {
  return importSites.get(withSep(path.resolve(root))) ?? [];
}

function install(): void {
  if (installed) return;
  installed = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const knot = KNOT_MODULES[specifier];
      if (knot) return { url: knot, shortCircuit: true };
      if (specifier.startsWith("plugin:")) return { url: resolvePluginSpecifier(specifier, context.parentURL), format: "module", shortCircuit: true };
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      if (url.startsWith(PEER_MODULE_SCHEME)) return { format: "module", source: peerModuleSource(url), shortCircuit: true };
      return nextLoad(url, context);
    },
  });
}

function resolvePluginSpecifier(specifier: string, parentURL: string | undefined): string {
  const match = PLUGIN_SPECIFIER.exec(specifier);
  if (!match) throw new Error(`cannot import "${specifier}": expected plugin:<name> or plugin:<name>/<lib>`);
  const name = match[1]!;
  const stem = match[2];
  const parentFile = parentURL?.startsWith("file:") ? fileURLToPath(parentURL) : null;
  const root = parentFile === null ? null : rootOf(parentFile);
  if (parentFile === null || root === null) throw new Error(`cannot import "${specifier}": only plugin code may import plugin modules`);
  recordSite(root, specifier, name, parentFile);
  const mainFile = path.join(root, name, "main.js");
  const peer = stem === undefined && !(roots.get(root)?.has(name) && fs.existsSync(mainFile)) ? peerModuleUrl(root, name) : null;
  if (peer) return peer;
  if (!roots.get(root)?.has(name)) throw new Error(`cannot import "${specifier}": plugin "${name}" is not loaded`);
  const file = stem === undefined ? path.join(root, name, "main.js") : path.join(root, name, "libs", `${stem}.js`);
  return pathToFileURL(file).href;
}

/** Recorded before resolving succeeds or fails: the loader fails an importer whose import reached a plugin that then failed. */
function recordSite(root: string, specifier: string, name: string, file: string): void {
  const importer = path.relative(root, file).split(path.sep)[0];
  if (importer === undefined || importer === name) return;
  const sites = importSites.get(root) ?? [];
  if (!sites.some((site) => site.file === file && site.specifier === specifier)) sites.push({ importer, specifier, name, file });
  importSites.set(root, sites);
}

function rootOf(file: string): string | null {
  for (const root of roots.keys()) if (file.startsWith(root)) return root;
  return null;
}

/** The key a plugins root is known by here (absolute, with a trailing separator). */
export function rootKey(root: string): string {
  return withSep(path.resolve(root));
}

function withSep(dir: string): string {
  return dir.endsWith(path.sep) ? dir : dir + path.sep;
}
