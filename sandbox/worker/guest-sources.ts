/**
 * Reads the guest modules (sandbox/guest/*.ts) once at worker start and strips their types with
 * Node's stripTypeScriptTypes. These are the only modules the worker evaluates before user code.
 */
import { readFileSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";

/** Every guest module, by file name. The prelude imports them all; user code sees three of them. */
export const GUEST_FILES = [
  "bindings.ts",
  "intrinsics.ts",
  "names.ts",
  "runtime.ts",
  "inspect.ts",
  "console.ts",
  "arg-rules.ts",
  "args.ts",
  "toon.ts",
  "content.ts",
  "tool.ts",
  "identity-rules.ts",
  "identity.ts",
  "plugin.ts",
  "run-tool.ts",
  "prelude.ts",
] as const;

export type GuestFile = (typeof GUEST_FILES)[number];

/** What user code may import by name, and the guest file behind it. */
export const PUBLIC_GUEST_MODULES: Readonly<Record<string, GuestFile>> = Object.freeze({
  "knot:tool": "tool.ts",
  "knot:identity": "identity.ts",
  "knot:plugin": "plugin.ts",
});

export type GuestSources = ReadonlyMap<GuestFile, string>;

export function loadGuestSources(): GuestSources {
  const sources = new Map<GuestFile, string>();
  for (const file of GUEST_FILES) {
    const text = readFileSync(new URL(`../guest/${file}`, import.meta.url), "utf8");
    sources.set(file, stripTypeScriptTypes(text, { mode: "strip" }));
  }
  return sources;
}
