/**
 * The lib modules one run may load: exactly the pinned versions (see lib-pins.ts), followed
 * through libs that import libs, each checked against the *runner* — the lib must still exist and
 * be readable by them, and so must the pinned version (tool-visibility.ts). Anything else fails
 * the run before it starts, with a message saying which lib and what to do; nothing is ever
 * substituted. The sandbox's module namespace is flat per run, so two pins that give one
 * `lib:<name>` two different libs are refused too. The tool and its libs together hold at most the
 * sandbox's MAX_MODULE_GRAPH_CHARS: checked here before any lib is stripped or parsed, so a run
 * never costs the server's thread more than that much parsing.
 */
import { prepareSource } from "../../client-modules/index.ts";
import { MAX_MODULE_GRAPH_CHARS } from "../../sandbox/protocol.ts";
import type { LibPin, Store } from "../store/store.ts";
import { libImports } from "./lib-pins.ts";
import { toolVisible, versionVisible, type Reader } from "./tool-visibility.ts";

/** The linker's own cap (sandbox/worker/linker.ts): a run never needs more. */
const MAX_LIBS = 64;

export type PinnedModules =
  | { readonly ok: true; readonly modules: ReadonlyMap<string, string> }
  | { readonly ok: false; readonly message: string };

export interface PinnedRoot {
  readonly code: string;
  readonly language: "js" | "ts";
  readonly libPins: readonly LibPin[];
  /** A saved tool must have a pin for every lib it imports; a draft's pins are made just now. */
  readonly saved: boolean;
}

const UPDATE = 'its owner can re-pin with "Update libs" in the editor (POST /api/tools/<id>/libs)';

export async function loadPinnedLibs(store: Store, reader: Reader, root: PinnedRoot): Promise<PinnedModules> {
  const modules = new Map<string, string>();
  const chosen = new Map<string, string>(); // name → lib id
  const fail = (message: string): PinnedModules => ({ ok: false, message });
  let graphChars = root.code.length;
  if (root.saved) {
    const missing = unpinned(root.code, root.language, root.libPins);
    if (missing) return fail(`lib:${missing} is not pinned (the tool was saved before libs were pinned, or the name was ambiguous): ${UPDATE}`);
  }
  const queue: { pin: LibPin; via: string }[] = root.libPins.map((pin) => ({ pin, via: "the tool" }));
  while (queue.length > 0) {
    const { pin, via } = queue.shift()!;
    const specifier = `lib:${pin.name}`;
    const earlier = chosen.get(pin.name);
    if (earlier !== undefined) {
      if (earlier !== pin.libId) return fail(`${specifier} means two different libs in this run (${via} pins another one than an earlier import): rename one of them`);
      continue;
    }
    if (chosen.size >= MAX_LIBS) return fail(`a tool may load at most ${MAX_LIBS} libs`);
    const lib = await store.getUserTool(pin.libId);
    if (!lib || lib.kind !== "lib") return fail(`${specifier} (pinned by ${via}) was deleted (or is no longer a lib): ${UPDATE}`);
    if (!toolVisible(reader, lib)) return fail(`${specifier} (pinned by ${via}) is a lib that is not shared with you (any more): nothing else is loaded in its place`);
    const saved = await store.getUserToolVersion(lib.id, pin.version);
    if (!saved) return fail(`${specifier} (pinned by ${via}) has no version ${pin.version} any more: ${UPDATE}`);
    if (!versionVisible(reader, lib, saved.tool)) {
      return fail(`${specifier} (pinned by ${via}) is pinned to version ${pin.version} of ${lib.ownerName}'s lib "${lib.name}", which was not shared with you when it was saved: ${UPDATE}`);
    }
    graphChars += saved.tool.code.length;
    if (graphChars > MAX_MODULE_GRAPH_CHARS) {
      return fail(`${specifier} (pinned by ${via}) is too large: a tool and the modules it loads may hold at most ${MAX_MODULE_GRAPH_CHARS.toLocaleString("en-US")} characters of code together`);
    }
    const prepared = prepareSource(saved.tool.code, saved.tool.language, specifier);
    if (!prepared.ok) return fail(`${specifier} (version ${pin.version}) does not compile: ${prepared.diagnostics[0]?.message ?? "syntax error"}`);
    const nested = saved.tool.libPins ?? [];
    const missing = unpinned(saved.tool.code, saved.tool.language, nested);
    if (missing) return fail(`lib:${missing}, imported by ${specifier} (version ${pin.version}), is not pinned: the lib's owner can re-pin it with "Update libs"`);
    chosen.set(pin.name, pin.libId);
    modules.set(specifier, prepared.js);
    for (const next of nested) queue.push({ pin: next, via: specifier });
  }
  return { ok: true, modules };
}

/** The first lib name the code imports that has no pin, or null. */
function unpinned(code: string, language: "js" | "ts", pins: readonly LibPin[]): string | null {
  return libImports(code, language).find((site) => !pins.some((pin) => pin.name === site.name))?.name ?? null;
}
