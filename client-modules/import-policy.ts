/**
 * Which specifiers code in a user sandbox may import. This is the attach/not-attach boundary of
 * the reference design: user tools get the knot:* modules, the client modules plugins declared,
 * and lib: scripts shared with the caller — never a Node API, a file, a URL, a package, or a
 * plugin's main module or libs (those live in the trusted plugin pool). Every refusal says why,
 * so an author can act on it. The sandbox linker applies the same sets again at run time.
 */
import { isBuiltin } from "node:module";

/** `true` when allowed; otherwise the reason it is not (shown to the author). */
export type ImportPolicy = (specifier: string) => true | string;

/** The modules every sandboxed module may import. */
export const KNOT_MODULES: readonly string[] = Object.freeze(["knot:tool", "knot:identity", "knot:plugin"]);

const KNOT_SET: ReadonlySet<string> = new Set(KNOT_MODULES);

export interface UserToolImportContext {
  /** `plugin:<name>` and `plugin:<name>/<stem>` of every loaded ClientModuleSet. */
  readonly clientModuleSpecifiers: ReadonlySet<string>;
  /** Names of the `lib` scripts the caller may use (`lib:<name>`). */
  readonly libNames: ReadonlySet<string>;
}

/**
 * The policy for a user tool (or lib script).
 *
 * @example
 * const policy = userToolImportPolicy({ clientModuleSpecifiers: new Set(["plugin:metrics"]), libNames: new Set() });
 * policy("knot:tool")  // true
 * policy("node:fs")    // "node:fs is not available in user tools: …"
 */
export function userToolImportPolicy(ctx: UserToolImportContext): ImportPolicy {
  const pluginOf = (specifier: string) => parsePluginSpecifier(specifier)?.plugin;
  const pluginsWithClients = new Set([...ctx.clientModuleSpecifiers].map(pluginOf));
  return function userToolPolicy(specifier) {
    if (KNOT_SET.has(specifier) || ctx.clientModuleSpecifiers.has(specifier)) return true;
    if (specifier.startsWith("lib:")) {
      const name = specifier.slice("lib:".length);
      if (ctx.libNames.has(name)) return true;
      return `${specifier} is not a library you can use: no user script of kind lib named "${name}" is shared with you`;
    }
    const plugin = parsePluginSpecifier(specifier);
    if (plugin) {
      if (!pluginsWithClients.has(plugin.plugin)) {
        return `plugin:${plugin.plugin} exports no client modules; call its handlers with call() from knot:plugin instead`;
      }
      const declared = [...ctx.clientModuleSpecifiers].filter((s) => pluginOf(s) === plugin.plugin);
      return `${specifier} is not a client module of plugin ${plugin.plugin} (it declares ${declared.join(", ")}); a plugin's libs and main module are never importable from user tools`;
    }
    return describeUnavailable(specifier, "user tools");
  };
}

/**
 * The policy for one of a plugin's client modules: knot:* and its siblings by full name only,
 * so the set is self-contained (another plugin's modules and lib scripts do not exist there).
 */
export function clientModuleImportPolicy(pluginName: string, stems: readonly string[], selfStem: string): ImportPolicy {
  const siblings = new Set(stems.filter((stem) => stem !== selfStem));
  return function clientModulePolicy(specifier) {
    if (KNOT_SET.has(specifier)) return true;
    const plugin = parsePluginSpecifier(specifier);
    if (plugin && plugin.plugin === pluginName) {
      if (plugin.stem === null) {
        return `client modules import their siblings by full name (plugin:${pluginName}/<stem>), not through the alias plugin:${pluginName}`;
      }
      if (plugin.stem === selfStem) return `a module cannot import itself (${specifier})`;
      if (siblings.has(plugin.stem)) return true;
      return `${specifier} is not one of this plugin's client modules (declared: ${stems.join(", ")}); a plugin's libs and main module are never importable from user tools`;
    }
    if (plugin) return `client modules must be self-contained: ${specifier} belongs to plugin ${plugin.plugin}`;
    if (specifier.startsWith("lib:")) {
      return `client modules must be self-contained: ${specifier} is a user's script, not part of the plugin`;
    }
    return describeUnavailable(specifier, "client modules (they run inside user tools)");
  };
}

/** `plugin:<name>` or `plugin:<name>/<stem>`, split; null for anything else. */
export function parsePluginSpecifier(specifier: string): { plugin: string; stem: string | null } | null {
  const match = /^plugin:([^/]+)(?:\/(.+))?$/.exec(specifier);
  if (!match?.[1]) return null;
  return { plugin: match[1], stem: match[2] ?? null };
}

/** Why a specifier outside the knot:/plugin:/lib: namespaces can never load in a sandbox. */
function describeUnavailable(specifier: string, where: string): string {
  if (specifier.startsWith("knot:")) {
    return `${specifier} is not a knot module (there are ${KNOT_MODULES.join(", ")})`;
  }
  if (specifier.startsWith("node:") || isBuiltin(specifier)) {
    return `${specifier} is not available in ${where}: Node APIs do not exist in the sandbox`;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(specifier) || /^(data|blob|file):/i.test(specifier)) {
    return `${specifier} is not available in ${where}: code is never loaded from a URL`;
  }
  if (/^(\.{1,2}\/|\/|\.{1,2}$)/.test(specifier) || /^[a-z]:[\\/]/i.test(specifier)) {
    return `${specifier} is not available in ${where}: there are no files to import; share code as a lib script (lib:<name>)`;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) {
    return `${specifier} is not available in ${where}: only knot:, plugin: and lib: modules can be imported`;
  }
  return `${specifier} is not available in ${where}: packages are not installed in the sandbox; only knot:, plugin: and lib: modules can be imported`;
}
