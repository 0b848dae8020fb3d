/**
 * Reads the SVG files a manifest names (`icons`, `logo_light`, `logo_dark`) at load: each must be
 * a regular file inside the plugin folder (symlinks resolved, so none leads out), at most
 * 64 KiB, and an SVG that survives sanitising. A problem fails the plugin, naming the key.
 * Also reads each lib's `[tool.knot.lib]` version block.
 */
import fs from "node:fs";
import path from "node:path";
import { parseLibVersion } from "./manifest/lib-block.ts";
import type { PluginManifest } from "./manifest-types.ts";
import type { PluginProblem } from "./registry.ts";
import { sanitizeSvg } from "./svg-sanitizer.ts";

export const MAX_SVG_BYTES = 64 * 1024;

/** A plugin file's text; a failure names the file (Node leaves the path out of some, such as EISDIR). */
export function readPluginFile(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw Object.assign(new Error(`${file} cannot be read (${code})`, { cause: error }), { path: file, code });
  }
}

/** Relative path → sanitised SVG. */
export type PluginAssets = ReadonlyMap<string, string>;

export function readPluginAssets(name: string, dir: string, manifest: PluginManifest): { assets: PluginAssets } | { problems: PluginProblem[] } {
  const named: Array<{ file: string; key: string }> = [
    ...manifest.icons.map((file, index) => ({ file, key: `tool.knot.icons[${index}]` })),
    ...(manifest.logoLight ? [{ file: manifest.logoLight, key: "tool.knot.logo_light" }] : []),
    ...(manifest.logoDark ? [{ file: manifest.logoDark, key: "tool.knot.logo_dark" }] : []),
  ];
  const assets = new Map<string, string>();
  const problems: PluginProblem[] = [];
  const realDir = named.length > 0 ? fs.realpathSync(dir) : dir;
  for (const { file, key } of named) {
    if (assets.has(file)) continue;
    const problem = (text: string) => problems.push({ code: "METADATA_INVALID", where: `${name}: ${key}`, message: `plugin "${name}": ${key} "${file}" ${text}` });
    let real: string;
    try {
      real = fs.realpathSync(path.join(dir, file));
    } catch {
      problem("does not exist in the plugin folder");
      continue;
    }
    if (!real.startsWith(realDir + path.sep)) {
      problem("leads outside the plugin folder");
      continue;
    }
    const stat = fs.statSync(real);
    if (!stat.isFile()) problem("is not a file");
    else if (stat.size > MAX_SVG_BYTES) problem(`is ${stat.size} bytes; icons and logos are at most ${MAX_SVG_BYTES} bytes (64 KiB)`);
    else {
      const clean = sanitizeSvg(readPluginFile(real));
      if (clean === null) problem("is not an SVG image (no <svg> root element)");
      else assets.set(file, clean);
    }
  }
  return problems.length > 0 ? { problems } : { assets };
}

/** `libs/<stem>.js` → its declared `[tool.knot.lib]` version (null when it has no block). */
export function readLibVersions(name: string, dir: string): { libs: ReadonlyMap<string, string | null> } | { problems: PluginProblem[] } {
  const libsDir = path.join(dir, "libs");
  const libs = new Map<string, string | null>();
  const problems: PluginProblem[] = [];
  if (!fs.existsSync(libsDir)) return { libs };
  for (const file of fs.readdirSync(libsDir).filter((f) => f.endsWith(".js")).sort()) {
    const result = parseLibVersion(name, `libs/${file}`, readPluginFile(path.join(libsDir, file)));
    if (result.ok) libs.set(file.slice(0, -".js".length), result.version);
    else problems.push(...result.errors.map((e) => ({ code: String(e.code), message: e.message, ...(e.detail.where ? { where: e.detail.where } : {}), ...(e.detail.line ? { line: e.detail.line } : {}) })));
  }
  return problems.length > 0 ? { problems } : { libs };
}
