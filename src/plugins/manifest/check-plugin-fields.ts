/**
 * The plugin-wide fields of `[tool.knot]`: version, description, the runtime range,
 * permission ids, exported client modules and required config keys.
 */
import { satisfies, valid, validRange } from "semver";
import type { ExportDecl } from "../manifest-types.ts";
import { IDENTIFIER, PERMISSION_ID } from "../../../sandbox/guest/names.ts";
import { describeValue, readString, readUniqueStrings } from "./checks.ts";
import type { Report, TomlTable } from "./checks.ts";
import type { KeyPath } from "./key-path.ts";

const EXPORT_FILE = /^(.+)\.(js|ts)$/;

export function checkVersion(knot: TomlTable, path: KeyPath, report: Report): string | undefined {
  const version = readString(knot, "version", path, report, { required: true });
  if (version === undefined) return undefined;
  const normalized = valid(version);
  if (normalized === null) report([...path, "version"], `must be a semver version like "1.0.0" (got ${describeValue(version)})`);
  return normalized ?? undefined;
}

/**
 * The runtime range comes from top-level `requires-runtime` or `[tool.knot] requires` (not both)
 * and must be satisfied by this runtime's version. Returns the range as written, or null.
 */
export function checkRuntimeRange(
  document: TomlTable,
  knot: TomlTable | undefined,
  runtimeVersion: string,
  report: Report,
): string | null {
  const topLevel = readString(document, "requires-runtime", [], report, { nonEmpty: true });
  const inKnot = knot ? readString(knot, "requires", ["tool", "knot"], report, { nonEmpty: true }) : undefined;
  if (topLevel !== undefined && inKnot !== undefined) {
    report(["tool", "knot", "requires"], "cannot be combined with requires-runtime; keep one of them");
    return null;
  }
  const range = topLevel ?? inKnot;
  if (range === undefined) return null;
  const rangePath = topLevel !== undefined ? ["requires-runtime"] : ["tool", "knot", "requires"];
  if (validRange(range) === null) {
    report(rangePath, `must be a semver range like ">=0.1" (got ${describeValue(range)})`);
  } else if (!satisfies(runtimeVersion, range, { includePrerelease: true })) {
    report(rangePath, `: this runtime's version ${runtimeVersion} does not satisfy the required range ${describeValue(range)}`);
  }
  return range;
}

/** Every id written in `permissions` (also malformed ones, so references to them are not reported twice). */
export function checkPermissionIds(knot: TomlTable, path: KeyPath, report: Report): { declared: Set<string>; ids: string[] } {
  const entries = readUniqueStrings(knot, "permissions", path, report, {
    pattern: PERMISSION_ID,
    patternName: "a permission id of lowercase letters, digits and _ ([a-z0-9_]+)",
  });
  return { declared: new Set(entries.map((entry) => entry.value)), ids: entries.map((entry) => entry.value) };
}

export function checkConfigKeys(knot: TomlTable, path: KeyPath, report: Report): string[] {
  return readUniqueStrings(knot, "config", path, report, {
    pattern: IDENTIFIER,
    patternName: "a config key name ([A-Za-z_][A-Za-z0-9_]*)",
  }).map((entry) => entry.value);
}

/** `export = ["client.js", …]`: plain .js/.ts file names in the plugin folder with unique identifier stems. */
export function checkExports(knot: TomlTable, path: KeyPath, report: Report): ExportDecl[] {
  const value = knot["export"];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report([...path, "export"], `must be an array of file names like "client.js" (got ${describeValue(value)})`);
    return [];
  }
  const exports: ExportDecl[] = [];
  value.forEach((file: unknown, index) => {
    const filePath = [...path, "export", index];
    if (typeof file !== "string") {
      report(filePath, `must be a file name like "client.js" (got ${describeValue(file)})`);
      return;
    }
    if (file.includes("/") || file.includes("\\")) {
      report(filePath, `must be a file name in the plugin folder, without / or \\ (got ${describeValue(file)})`);
      return;
    }
    const stem = EXPORT_FILE.exec(file)?.[1];
    if (stem === undefined) {
      report(filePath, `must end in .js or .ts (got ${describeValue(file)})`);
      return;
    }
    if (!IDENTIFIER.test(stem)) {
      report(filePath, `must have an identifier stem ([A-Za-z_][A-Za-z0-9_]*) before .js/.ts (got ${describeValue(file)})`);
      return;
    }
    const earlier = exports.find((declared) => declared.stem === stem);
    if (earlier) {
      report(filePath, `repeats the module stem "${stem}" (already exported by ${describeValue(earlier.file)})`);
      return;
    }
    exports.push({ file, stem });
  });
  return exports;
}
