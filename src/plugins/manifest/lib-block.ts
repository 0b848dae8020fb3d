/**
 * A lib's own version: `libs/<stem>.js` may open with a metadata block holding only
 * `[tool.knot.lib] version = "1.2.0"`. A lib without a block has no version; a block that is there
 * is checked as strictly as main.js's (unknown keys fatal, errors name plugin, file, key and line).
 */
import { valid } from "semver";
import { KnotError } from "../../errors.ts";
import { checkKnownKeys, describeValue, isTable, readString } from "./checks.ts";
import { extractMetadataBlock } from "./extract-block.ts";
import { formatKeyPath, type KeyPath } from "./key-path.ts";
import { createKeyLocator } from "./locate-key.ts";
import { parseTomlDocument } from "./toml.ts";

const LIB_PATH: KeyPath = ["tool", "knot", "lib"];

export type LibVersionResult = { ok: true; version: string | null } | { ok: false; errors: KnotError[] };

export function parseLibVersion(pluginName: string, file: string, source: string): LibVersionResult {
  const fail = (text: string, line: number, key = "metadata block"): KnotError =>
    new KnotError("METADATA_INVALID", `plugin "${pluginName}": ${file} ${text} (line ${line})`, { where: `${pluginName}: ${file}: ${key}`, line });
  if (!source.split(/\r?\n/).some((line) => line.trim() === "// /// script")) return { ok: true, version: null };
  const extracted = extractMetadataBlock(source);
  if (!extracted.ok) return { ok: false, errors: [fail(`: ${extracted.reason.replace("main.js", file)}`, extracted.line)] };
  const parsed = parseTomlDocument(extracted.block.lines.join("\n"));
  if (!parsed.ok) return { ok: false, errors: [fail(`: TOML syntax error in the metadata block: ${parsed.reason}`, extracted.block.firstInnerLine + parsed.line - 1)] };

  const locator = createKeyLocator(extracted.block);
  const errors: KnotError[] = [];
  const report = (path: KeyPath, problem: string) => {
    const key = formatKeyPath(path);
    errors.push(fail(problem.startsWith(":") ? `${key}${problem}` : `${key} ${problem}`, locator.lineOf(path), key));
  };
  const document = parsed.value;
  checkKnownKeys(document, ["tool"], [], report);
  const tool = document["tool"];
  const knot = isTable(tool) ? tool["knot"] : undefined;
  const lib = isTable(knot) ? knot["lib"] : undefined;
  if (isTable(tool)) checkKnownKeys(tool, ["knot"], ["tool"], report);
  if (isTable(knot)) checkKnownKeys(knot, ["lib"], ["tool", "knot"], report);
  if (!isTable(lib)) {
    report(LIB_PATH, lib === undefined ? "is required in a lib's metadata block" : `must be a table (got ${describeValue(lib)})`);
    return { ok: false, errors };
  }
  checkKnownKeys(lib, ["version"], LIB_PATH, report);
  const version = readString(lib, "version", LIB_PATH, report, { required: true });
  const normalized = version === undefined ? null : valid(version);
  if (version !== undefined && normalized === null) report([...LIB_PATH, "version"], `must be a semver version like "1.0.0" (got ${describeValue(version)})`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, version: normalized };
}
