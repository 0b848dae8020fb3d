/** Shared by the manifest tests: wraps TOML lines into a main.js and parses it. */
import assert from "node:assert/strict";
import type { KnotError } from "../../src/errors.ts";
import { parsePluginManifest } from "../../src/plugins/manifest/index.ts";
import type { PluginManifest } from "../../src/plugins/manifest-types.ts";

export const RUNTIME = { runtimeVersion: "0.1.0" };

/** main.js with the TOML lines in a block opening at line 1 (so TOML line i is file line i + 2). */
export function plugin(toml: readonly string[], before: readonly string[] = []): string {
  const body = toml.map((line) => (line === "" ? "//" : `// ${line}`));
  return [...before, "// /// script", ...body, "// ///", "export function a() {}", ""].join("\n");
}

export function parseOk(source: string, runtime = RUNTIME): PluginManifest {
  const result = parsePluginManifest("metrics", source, runtime);
  if (!result.ok) assert.fail(result.errors.map((error) => error.message).join("\n"));
  return result.manifest;
}

export function parseErrors(source: string, runtime = RUNTIME): KnotError[] {
  const result = parsePluginManifest("metrics", source, runtime);
  assert.equal(result.ok, false, "expected the manifest to be refused");
  return result.ok ? [] : result.errors;
}

export const HEAD = ["[tool.knot]", 'version = "1.0.0"', 'permissions = ["export"]']; // file lines 2-4
