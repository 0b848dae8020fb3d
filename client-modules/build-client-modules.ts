/**
 * A plugin's declared client modules, made ready for user sandboxes at plugin load: each file is
 * read once, stripped if TypeScript, and linted so that it imports only knot:* and its siblings by
 * full name. Any problem fails the whole plugin's set — a broken module fails the plugin at load,
 * not the user at run time. The modules run with the caller's authority inside the caller's
 * sandbox: they add ergonomics (wrapping knot:plugin's call), never authority.
 */
import { IDENTIFIER, PLUGIN_NAME } from "../sandbox/guest/names.ts";
import { exportShape } from "./exported-names.ts";
import { clientModuleImportPolicy } from "./import-policy.ts";
import { lintModule } from "./lint-module.ts";
import { parseModule } from "./parse.ts";
import type { Language } from "./prepare-source.ts";

export interface ClientModuleSet {
  plugin: string;
  /** specifier → prepared JavaScript source. */
  modules: ReadonlyMap<string, string>;
  /** `plugin:<name>` first, then `plugin:<name>/<stem>` in declaration order. */
  specifiers: readonly string[];
}

export interface ClientModuleProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  code: string;
}

export type BuiltClientModules = { ok: true; set: ClientModuleSet } | { ok: false; problems: ClientModuleProblem[] };


/**
 * Build the user-side modules of plugin `pluginName` from its `export = [...]` list.
 *
 * @example
 * buildClientModules("metrics", [{ file: "client.js", stem: "client" }], (f) => fs.readFileSync(path.join(dir, f), "utf8"))
 * // → { ok: true, set: { specifiers: ["plugin:metrics", "plugin:metrics/client"], … } }
 */
export function buildClientModules(
  pluginName: string,
  exports: readonly { file: string; stem: string }[],
  readFile: (file: string) => string,
): BuiltClientModules {
  const declarationProblems = checkDeclarations(pluginName, exports);
  if (declarationProblems.length > 0) return { ok: false, problems: declarationProblems };

  const stems = exports.map((e) => e.stem);
  const problems: ClientModuleProblem[] = [];
  const prepared = new Map<string, string>();
  for (const { file, stem } of exports) {
    let source: string;
    try {
      source = readFile(file);
    } catch (error) {
      const reason = (error as { code?: unknown })?.code;
      const because = typeof reason === "string" ? ` (${reason})` : "";
      problems.push({ file, line: 1, column: 1, code: "MODULE_NOT_FOUND", message: `cannot read the client module${because}` });
      continue;
    }
    const result = lintModule(source, {
      language: languageOf(file),
      filename: file,
      policy: clientModuleImportPolicy(pluginName, stems, stem),
      strictDynamicImports: true,
    });
    for (const d of result.diagnostics) {
      if (d.severity === "error") problems.push({ file, line: d.line, column: d.column, message: d.message, code: d.code });
    }
    if (result.js !== null) prepared.set(`plugin:${pluginName}/${stem}`, result.js);
  }
  if (problems.length > 0) return { ok: false, problems };

  const first = `plugin:${pluginName}/${stems[0]}`;
  const modules = new Map<string, string>([[`plugin:${pluginName}`, aliasSource(first, prepared.get(first) ?? "")]]);
  for (const [specifier, js] of prepared) modules.set(specifier, js);
  return { ok: true, set: Object.freeze({ plugin: pluginName, modules, specifiers: Object.freeze([...modules.keys()]) }) };
}

/**
 * The alias `plugin:<name>` is a generated re-export of the first module, not a second copy of
 * its source: a linker that instantiates one module per specifier then still has exactly one
 * instance of the first module (shared with a sibling importing it by full name), and the alias
 * has exactly the first module's members — no flattening of the others. `export *` does not carry
 * `default`, so that is re-exported by name when the first module has one.
 */
function aliasSource(firstSpecifier: string, firstJs: string): string {
  const from = JSON.stringify(firstSpecifier);
  const parsed = parseModule(firstJs);
  const hasDefault = parsed.ok && exportShape(parsed.program).hasDefault;
  return hasDefault ? `export * from ${from};\nexport { default } from ${from};\n` : `export * from ${from};\n`;
}

function languageOf(file: string): Language {
  return /\.(c|m)?ts$/.test(file) ? "ts" : "js";
}

function checkDeclarations(pluginName: string, exports: readonly { file: string; stem: string }[]): ClientModuleProblem[] {
  const problems: ClientModuleProblem[] = [];
  const invalid = (file: string, message: string) =>
    problems.push({ file, line: 1, column: 1, code: "EXPORT_INVALID", message });
  if (!PLUGIN_NAME.test(pluginName)) invalid("", `plugin name ${JSON.stringify(pluginName)} must match [a-z0-9_-]+`);
  if (exports.length === 0) invalid("", "no client modules are declared");
  const seen = new Set<string>();
  for (const { file, stem } of exports) {
    if (!IDENTIFIER.test(stem)) invalid(file, `stem ${JSON.stringify(stem)} must be an identifier ([A-Za-z_][A-Za-z0-9_]*)`);
    else if (seen.has(stem)) invalid(file, `stem "${stem}" is declared twice`);
    seen.add(stem);
    if (!/\.(m?js|m?ts)$/.test(file)) invalid(file, "a client module must be a .js or .ts file");
    if (file.startsWith("/") || /^[A-Za-z]:/.test(file) || file.split(/[\\/]/).includes("..")) {
      invalid(file, "a client module must be a file inside the plugin's folder");
    }
  }
  return problems;
}
