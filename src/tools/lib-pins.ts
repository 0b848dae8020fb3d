/**
 * Pinning `lib:<name>` imports. Threat: an untrusted author renames (or deletes and recreates, or
 * newly shares) a lib so that `lib:<name>` in *someone else's* tool starts meaning their code,
 * which then runs with the authority of whoever runs that tool. Rule: when a tool or lib is saved,
 * each `lib:<name>` it imports is pinned to one lib (by id) and version; runs load exactly the
 * pinned versions (see pinned-libs.ts), and only the owner's explicit "update libs" re-pins.
 *
 * What a name means when it is pinned (the author's view, the same as tool names):
 * - `lib:fmt` — the author's own lib `fmt`; else the one lib `fmt` shared with the author, and if
 *   several authors share one, nothing: the import is ambiguous until written `lib:<owner>__fmt`;
 * - `lib:alice__fmt` — alice's lib `fmt`, when it is shared with the author.
 */
import { createTextMemo, listSavedImports, prepareSource, SOURCE_MEMO, type Diagnostic } from "../../client-modules/index.ts";
import type { LibPin, Store, UserToolSummary } from "../store/store.ts";
import { qualifiedName } from "./tool-names.ts";

export interface LibAuthor {
  readonly id: string;
  readonly groups: readonly string[];
}

export type LibMeaning = { readonly lib: UserToolSummary } | { readonly lib: null; readonly ambiguous: readonly string[] };

/** The libs `author` may import: their own (active or not) and active ones shared with them. */
export async function libsOf(store: Store, author: LibAuthor): Promise<UserToolSummary[]> {
  return (await store.listUserToolsVisibleTo(author.id, author.groups)).filter((tool) => tool.kind === "lib");
}

/** What `lib:<name>` means to `authorId` among `libs` (from libsOf): see the header. */
export function meaningOf(libs: readonly UserToolSummary[], authorId: string, name: string): LibMeaning {
  const own = libs.find((lib) => lib.ownerId === authorId && lib.name === name);
  if (own) return { lib: own };
  const qualified = libs.find((lib) => lib.ownerId !== authorId && qualifiedName(lib.ownerName, lib.name) === name);
  if (qualified) return { lib: qualified };
  const shared = libs.filter((lib) => lib.ownerId !== authorId && lib.name === name);
  if (shared.length === 1) return { lib: shared[0]! };
  return { lib: null, ambiguous: shared.map((lib) => qualifiedName(lib.ownerName, lib.name)) };
}

/** Every name a `lib:` specifier the code imports names (static and literal dynamic imports), with its site. */
/** `lib:` import sites by the JavaScript they were listed from (runs of a saved tool list the same text). */
const libSites = createTextMemo<readonly LibImportSite[]>(SOURCE_MEMO);

export interface LibImportSite {
  readonly name: string;
  readonly line: number;
  readonly column: number;
}

export function libImports(code: string, language: "js" | "ts"): readonly LibImportSite[] {
  if (!code.includes("lib:")) return [];
  const prepared = prepareSource(code, language, "pins");
  if (!prepared.ok) return [];
  return libSites(prepared.js, () => {
    const listed = listSavedImports(prepared.js);
    if (!listed.ok) return Object.freeze([]);
    return Object.freeze(listed.imports
      .filter((site) => site.specifier.startsWith("lib:"))
      .map((site) => Object.freeze({ name: site.specifier.slice("lib:".length), line: site.line, column: site.column })));
  });
}

export interface PinOutcome {
  readonly pins: LibPin[];
  /** Imports that could not be pinned (unknown or ambiguous names), for the editor's problems list. */
  readonly diagnostics: Diagnostic[];
}

/**
 * Pins for code saved by `author`. Names already pinned in `previous` keep their pin exactly (a
 * save never re-pins silently); with `update` ("update libs") they move to the newest version of
 * the *same* lib, and only a pin whose lib is gone or no longer readable by the author is made
 * again from the name. New names are pinned to what they mean now; pins of names the code no
 * longer imports go.
 */
export async function pinLibs(store: Store, author: LibAuthor, code: string, language: "js" | "ts", previous: readonly LibPin[] | null, update = false): Promise<PinOutcome> {
  const imports = libImports(code, language);
  if (imports.length === 0) return { pins: [], diagnostics: [] };
  const libs = await libsOf(store, author);
  const pins: LibPin[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const site of imports) {
    if (pins.some((pin) => pin.name === site.name)) continue;
    const kept = previous?.find((pin) => pin.name === site.name);
    if (kept && !update) {
      pins.push(kept);
      continue;
    }
    const same = kept ? libs.find((lib) => lib.id === kept.libId) : undefined;
    if (same) {
      pins.push({ name: site.name, libId: same.id, version: same.version });
      continue;
    }
    const meaning = meaningOf(libs, author.id, site.name);
    if (meaning.lib) {
      pins.push({ name: site.name, libId: meaning.lib.id, version: meaning.lib.version });
    } else if (meaning.ambiguous.length > 0) {
      diagnostics.push({
        severity: "error", code: "LIB_AMBIGUOUS", line: site.line, column: site.column,
        message: `lib:${site.name} is shared by several people; import one by its owner-qualified name: ${meaning.ambiguous.map((n) => `lib:${n}`).join(", ")}`,
      });
    }
    // An unknown name is already reported by the linter (MODULE_NOT_ALLOWED).
  }
  return { pins, diagnostics };
}
