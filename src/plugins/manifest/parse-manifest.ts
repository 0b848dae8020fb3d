/**
 * Reads a plugin's declarations from the `// /// script` block of its main.js without running
 * any plugin code: extract the block, parse it as TOML, validate it. Every problem becomes a
 * METADATA_INVALID KnotError naming the plugin, the key and the main.js line.
 */
import { valid } from "semver";
import { KnotError } from "../../errors.ts";
import type { PluginManifest } from "../manifest-types.ts";
import { checkManifestDocument } from "./check-manifest.ts";
import { extractMetadataBlock } from "./extract-block.ts";
import { formatKeyPath } from "./key-path.ts";
import type { KeyPath } from "./key-path.ts";
import { createKeyLocator } from "./locate-key.ts";
import { parseTomlDocument } from "./toml.ts";

export type ParseManifestResult = { ok: true; manifest: PluginManifest } | { ok: false; errors: KnotError[] };

/**
 * @example
 * const result = parsePluginManifest("metrics", readFileSync("plugins/metrics/main.js", "utf8"), { runtimeVersion: "0.1.0" });
 * if (!result.ok) for (const error of result.errors) log(error.message);
 * // plugin "metrics": tool.knot.mcp_tools[0].description is required (main.js line 14)
 */
export function parsePluginManifest(pluginName: string, source: string, options: { runtimeVersion: string }): ParseManifestResult {
  if (valid(options.runtimeVersion) === null) throw new TypeError(`runtimeVersion must be a semver version, got ${options.runtimeVersion}`);
  const extracted = extractMetadataBlock(source);
  if (!extracted.ok) return failWith(blockError(pluginName, extracted.reason, extracted.line));
  const { block } = extracted;
  const parsed = parseTomlDocument(block.lines.join("\n"));
  if (!parsed.ok) {
    return failWith(blockError(pluginName, `TOML syntax error in the metadata block: ${parsed.reason}`, block.firstInnerLine + parsed.line - 1));
  }

  const locator = createKeyLocator(block);
  const errors: KnotError[] = [];
  const report = (path: KeyPath, problem: string): void => {
    const line = locator.lineOf(path);
    const key = formatKeyPath(path);
    const text = problem.startsWith(":") ? `${key}${problem}` : `${key} ${problem}`;
    errors.push(new KnotError("METADATA_INVALID", `plugin "${pluginName}": ${text} (main.js line ${line})`, { where: `${pluginName}: ${key}`, line }));
  };
  const manifest = checkManifestDocument({
    pluginName,
    document: parsed.value,
    runtimeVersion: options.runtimeVersion,
    report,
    lineOf: (path) => locator.lineOf(path),
  });
  if (errors.length > 0 || manifest === null) {
    // In file order, so the list reads like the file.
    return { ok: false, errors: errors.sort((a, b) => (a.detail.line ?? 0) - (b.detail.line ?? 0)) };
  }
  return { ok: true, manifest };
}

/** A problem with the block itself (missing, unterminated, not TOML): no key to name. */
function blockError(pluginName: string, reason: string, line: number): KnotError {
  return new KnotError("METADATA_INVALID", `plugin "${pluginName}": ${reason} (main.js line ${line})`, {
    where: `${pluginName}: metadata block`,
    line,
  });
}

function failWith(error: KnotError): ParseManifestResult {
  return { ok: false, errors: [error] };
}
