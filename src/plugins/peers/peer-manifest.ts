/**
 * A peer's `manifest["tool.knot"]` is validated exactly like a `// /// script` block: the same
 * checker, so unknown keys are fatal and every error names the key. JSON has no lines, so errors
 * name the peer instead.
 */
import { KnotError } from "../../errors.ts";
import { checkManifestDocument } from "../manifest/check-manifest.ts";
import { formatKeyPath, type KeyPath } from "../manifest/key-path.ts";
import type { ParseManifestResult } from "../manifest/index.ts";

export function parsePeerManifest(pluginName: string, peerName: string, knot: Record<string, unknown>, options: { runtimeVersion: string }): ParseManifestResult {
  const errors: KnotError[] = [];
  const where = `peer "${peerName}" initialize manifest`;
  const report = (path: KeyPath, problem: string): void => {
    const key = formatKeyPath(path);
    const text = problem.startsWith(":") ? `${key}${problem}` : `${key} ${problem}`;
    errors.push(new KnotError("METADATA_INVALID", `plugin "${pluginName}": ${text} (${where})`, { where: `${pluginName}: ${key}` }));
  };
  const manifest = checkManifestDocument({
    pluginName, document: { tool: { knot } }, runtimeVersion: options.runtimeVersion, report, lineOf: () => 0,
  });
  if (errors.length > 0 || manifest === null) return { ok: false, errors };
  return { ok: true, manifest };
}
