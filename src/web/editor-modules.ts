/**
 * What the editor offers for completion: the `knot:*` modules with a signature and a line of help
 * per export, the client modules of loaded plugins (`plugin:<name>`, `plugin:<name>/<stem>`) with
 * their exported names, and the libs the caller may import (`lib:<name>`). Only names the user
 * tool could really import are listed, so completion never suggests a module the linter refuses.
 */
import { exportedNames, prepareSource } from "../../client-modules/index.ts";
import { KnotError } from "../errors.ts";
import type { Principal } from "../identity/principal.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { UserToolSummary } from "../store/store.ts";
import { callableName } from "../tools/tool-names.ts";
import type { UserToolsCatalog } from "../tools/user-tools.ts";

export interface CompletionExport {
  readonly name: string;
  readonly detail?: string;
  readonly info?: string;
}

export interface EditorModule {
  readonly specifier: string;
  readonly kind: "knot" | "plugin" | "lib";
  readonly exports: readonly CompletionExport[];
}

const arg = (name: string, what: string): CompletionExport => ({ name, detail: `(name, fallback?) → ${what}`, info: `The argument "name" as ${what}, or fallback when absent; throws INVALID_ARGUMENT when it is missing with no fallback or not readable as ${what} (see docs/user-tools.md).` });

/** The `knot:*` modules a user tool can import (names are checked against sandbox/guest by a test). */
export const KNOT_MODULE_DOCS: readonly EditorModule[] = Object.freeze([
  {
    specifier: "knot:tool", kind: "knot", exports: [
      arg("getString", "string"), arg("getInt", "integer"), arg("getFloat", "number"), arg("getBool", "boolean"), arg("getList", "list"),
      arg("getStringList", "string[]"), arg("getIntList", "integer[]"), arg("getFloatList", "number[]"), arg("getBoolList", "boolean[]"),
      { name: "returnString", detail: "(text) → never", info: "Ends the run with a text result." },
      { name: "returnObject", detail: "(value) → never", info: "Ends the run with a JSON result." },
      { name: "returnToon", detail: "(value) → never", info: "Ends the run with the value encoded as TOON (compact for assistants)." },
      { name: "returnContent", detail: "(blocks) → never", info: "Ends the run with MCP content blocks." },
      { name: "returnError", detail: "(message) → never", info: "Ends the run with an error the caller sees (TOOL_ERROR)." },
      { name: "progress", detail: "(done, total?, message?)", info: "Reports progress; shown in the run panel and sent to MCP clients." },
      { name: "log", detail: "(level, message)", info: "Writes to the run's log (debug, info, warn or error)." },
      { name: "ask", detail: "async (message, schema) → object | null", info: "Asks the person behind the MCP client (elicitation); the run ends and runs again, from the start, with the answer. null when declined." },
      { name: "elicit", detail: "async (message, schema) → { action, content? }", info: "Like ask(), answering the client's whole reply." },
      { name: "sample", detail: "async (params) → result", info: "Asks the MCP client's model (sampling); the run runs again with the answer." },
      { name: "listRoots", detail: "async () → roots", info: "The MCP client's roots." },
      { name: "input", detail: "async ({ key: { method, params } }) → answers", info: "Several questions at once (elicitation/create, sampling/createMessage, roots/list)." },
      { name: "clientSupports", detail: "(capability) → boolean", info: "Whether the MCP client declared elicitation, sampling or roots." },
    ],
  },
  {
    specifier: "knot:identity", kind: "knot", exports: [
      { name: "user", detail: "() → User", info: "The caller: name, id, isAdmin, groups, permissions, pluginPermissions, hasPermission(id or [ids]: all of them), inGroup(g or [gs])." },
    ],
  },
  {
    specifier: "knot:plugin", kind: "knot", exports: [
      { name: "call", detail: "(plugin, fn, params?, { method? }) → Promise", info: "Calls a declared plugin handler as the caller (its gate applies)." },
    ],
  },
]);

/** Export names per lib version (a version never changes): listings carry no code, and each editor load lists every lib. */
const exportsByVersion = new Map<string, readonly string[]>();
const MAX_KEPT_EXPORTS = 4096;

async function libExports(catalog: UserToolsCatalog, lib: UserToolSummary): Promise<readonly string[]> {
  const key = `${lib.id}@${lib.version}`;
  const kept = exportsByVersion.get(key);
  if (kept) return kept;
  let code: string;
  try {
    ({ code } = await catalog.withCode(lib));
  } catch (error) {
    if (error instanceof KnotError && error.code === "NOT_FOUND") return []; // deleted since it was listed
    throw error;
  }
  const prepared = prepareSource(code, lib.language, `lib:${lib.name}`);
  const names = Object.freeze(prepared.ok ? exportedNames(prepared.js) : []);
  if (exportsByVersion.size >= MAX_KEPT_EXPORTS) exportsByVersion.clear();
  exportsByVersion.set(key, names);
  return names;
}

export async function editorModules(principal: Principal, registry: PluginRegistry, catalog: UserToolsCatalog): Promise<EditorModule[]> {
  // The `plugin:<name>` alias is generated as `export * from "plugin:<name>/<first>"`: follow it.
  const namesOf = (specifier: string): string[] => {
    const js = registry.clientModule(specifier) ?? "";
    const reexported = [...js.matchAll(/^export \* from "(plugin:[^"]+)";$/gm)].flatMap((m) => (m[1] !== specifier ? exportedNames(registry.clientModule(m[1]!) ?? "") : []));
    return [...new Set([...exportedNames(js), ...reexported])];
  };
  const plugins: EditorModule[] = [...registry.clientModuleSpecifiers()].sort().map((specifier) => ({
    specifier, kind: "plugin", exports: namesOf(specifier).map((name) => ({ name, detail: specifier })),
  }));
  // Own libs by name, shared ones by the owner-qualified name that always means them (lib-pins.ts).
  const libs: EditorModule[] = [];
  for (const tool of await catalog.list(principal)) {
    if (tool.kind !== "lib") continue;
    const specifier = `lib:${callableName(principal.user.id, tool)}`;
    libs.push({ specifier, kind: "lib", exports: (await libExports(catalog, tool)).map((name) => ({ name, detail: specifier })) });
  }
  return [...KNOT_MODULE_DOCS, ...plugins, ...libs];
}
