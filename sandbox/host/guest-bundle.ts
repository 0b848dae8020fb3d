/**
 * Why: the guest modules (sandbox/guest/*.ts) go into every fresh context. Bundled into one script
 * (esbuild, types stripped, strict mode), the worker compiles them once per isolate with V8's code
 * cache and evaluates one script per context (issue 13). Built once per host process, at the first
 * pool, and handed to each worker at start; the guest files are our own code, never user input.
 *
 * The entry is generated here: it imports sandbox/guest/bundle.ts (the prelude first), then hands
 * each knot:* module's exports over as an array. The export names come from esbuild's own reading
 * of each module (its metafile), so adding an export needs no list kept by hand.
 */
import { buildSync } from "esbuild";

const GUEST_DIR = new URL("../guest/", import.meta.url).pathname;

/** What each specifier the worker serves from the guest is made of (see sandbox/worker/guest-code.ts). */
const MODULE_FILES: Readonly<Record<string, string>> = {
  "knot:tool": "tool.ts",
  "knot:identity": "identity.ts",
  "knot:plugin": "plugin.ts",
  "knot-internal:run-tool": "run-tool.ts",
};

let built: string | undefined;

/** Each module's export names, as esbuild reads them (one build, nothing written). */
function exportNames(): Map<string, string[]> {
  const { metafile, warnings } = buildSync({
    entryPoints: Object.values(MODULE_FILES).map((file) => `${GUEST_DIR}${file}`),
    bundle: true, format: "esm", platform: "neutral", outdir: "/knot-guest-exports", write: false, metafile: true, logLevel: "silent",
  });
  refuseWarnings("export names", warnings);
  const byFile = new Map<string, string[]>();
  for (const output of Object.values(metafile.outputs)) {
    if (output.entryPoint !== undefined) byFile.set(output.entryPoint.split("/").pop()!, [...output.exports].sort());
  }
  return byFile;
}

/** `import { a as m0e0, … }` per module, then `handOff` with the arrays and the names (a JSON text costs a context nothing). */
function generatedEntry(): string {
  const imports: string[] = [];
  const arrays: string[] = [];
  const names: Record<string, string[]> = {};
  const exportsOf = exportNames();
  Object.entries(MODULE_FILES).forEach(([specifier, file], m) => {
    const exported = exportsOf.get(file);
    if (exported === undefined) throw new Error(`guest bundle: esbuild found no exports for ${file}`);
    names[specifier] = exported;
    const locals = exported.map((_, e) => `m${m}e${e}`);
    imports.push(`import { ${exported.map((name, e) => `${JSON.stringify(name)} as ${locals[e]}`).join(", ")} } from ${JSON.stringify(`./${file}`)};`);
    arrays.push(`${JSON.stringify(specifier)}: [${locals.join(", ")}]`);
  });
  return `import { handOff } from "./bundle.ts";\n${imports.join("\n")}\nhandOff({ ${arrays.join(", ")} }, ${JSON.stringify(JSON.stringify(names))});\n`;
}

/** A build warning (an import that will always be undefined, say) is a broken guest: refuse it. */
function refuseWarnings(what: string, warnings: readonly { text: string }[]): void {
  if (warnings.length > 0) throw new Error(`guest bundle (${what}): ${warnings.map((w) => w.text).join("; ")}`);
}

/**
 * Refuses a built bundle that would build a namespace object in every context (`import * as x`,
 * then `x` used as a value): what the generated entry and `import * as I` are there to avoid.
 */
export function refuseNamespaceObjects(bundle: string): string {
  if (bundle.includes("__export(")) throw new Error("guest bundle: a guest module is used as a namespace object (import * as x, then x used as a value)");
  return bundle;
}

export function guestBundle(): string {
  if (built !== undefined) return built;
  const result = buildSync({
    stdin: { contents: generatedEntry(), resolveDir: GUEST_DIR, sourcefile: "guest-entry.js", loader: "js" },
    bundle: true,
    format: "iife",
    // ES modules are strict; the script must be too (a failed delete or frozen write throws).
    banner: { js: '"use strict";' },
    target: "es2022",
    platform: "neutral",
    write: false,
    logLevel: "silent",
    legalComments: "none",
    // No comments (they would name our file paths) and less to parse; names stay readable.
    minifyWhitespace: true,
  });
  refuseWarnings("bundle", result.warnings);
  built = refuseNamespaceObjects(result.outputFiles[0]!.text);
  return built;
}
