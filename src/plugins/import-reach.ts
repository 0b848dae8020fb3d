/**
 * Plugin code that imported another plugin (its main.js, a lib or a peer's module) holds that
 * plugin's code: when the imported plugin fails — also after the import phase, whatever the folder
 * order — the importer fails too. Neither's code can be unloaded from Node's module cache.
 */
import fs from "node:fs";
import path from "node:path";
import type { PluginImportSite } from "./module-hooks.ts";
import type { PluginProblem } from "./registry.ts";

/**
 * The problems of `plugin` for each of its import sites whose plugin is not in `loading`.
 * `ownerOf` maps a `plugin:` name (a plugin's or a peer's) to the plugin that serves it.
 */
export function unloadedImports(
  plugin: { readonly name: string; readonly dir: string },
  sites: readonly PluginImportSite[],
  ownerOf: (name: string) => string | null,
  loading: ReadonlySet<string>,
): PluginProblem[] {
  return sites.flatMap((site) => {
    const owner = ownerOf(site.name);
    if (site.importer !== plugin.name || owner === null || owner === plugin.name || loading.has(owner)) return [];
    const file = path.relative(plugin.dir, site.file).split(path.sep).join("/");
    const line = lineOf(site.file, site.specifier);
    const at = line === null ? file : `${file} line ${line}`;
    return [{
      code: "PLUGIN_LOAD_FAILED", where: `${plugin.name}: ${file}`, ...(line === null ? {} : { line }),
      message: `plugin "${plugin.name}": ${at} imports ${site.specifier}, which failed to load (its top-level code may already have run)`,
    }];
  });
}

/** The first line quoting `specifier`; null when the file cannot be read or the import was built at run time. */
function lineOf(file: string, specifier: string): number | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const index = text.split("\n").findIndex((line) => line.includes(`"${specifier}"`) || line.includes(`'${specifier}'`) || line.includes(`\`${specifier}\``));
  return index === -1 ? null : index + 1;
}
