/**
 * A peer's answer to `initialize`, checked before use (wire data is parsed, never trusted):
 * `{name, version, description?, manifest?: {"tool.knot": {…}}, functions: [names], fetcher?: true}`.
 */
import { IDENTIFIER, PLUGIN_NAME } from "../../../sandbox/guest/names.ts";

export interface PeerInfo {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** `manifest["tool.knot"]` as sent, or null; validated later like a metadata block. */
  readonly manifest: Record<string, unknown> | null;
  readonly functions: readonly string[];
  readonly fetcher: boolean;
}

const MANIFEST_KEYS = ["tool.knot"];

/** Throws an Error whose message names the bad key. */
export function parseInitializeResult(value: unknown): PeerInfo {
  if (!isObject(value)) throw new Error("initialize must answer an object");
  const { name, version, description, manifest, functions, fetcher } = value;
  if (typeof name !== "string" || !PLUGIN_NAME.test(name)) throw new Error(`initialize: name must match [a-z0-9_-]+ (got ${JSON.stringify(name)})`);
  if (typeof version !== "string" || version === "") throw new Error("initialize: version must be a non-empty string");
  if (description !== undefined && typeof description !== "string") throw new Error("initialize: description must be a string");
  if (!Array.isArray(functions) || functions.some((f) => typeof f !== "string" || !IDENTIFIER.test(f))) {
    throw new Error("initialize: functions must be an array of identifiers ([A-Za-z_][A-Za-z0-9_]*)");
  }
  if (fetcher !== undefined && typeof fetcher !== "boolean") throw new Error("initialize: fetcher must be true or absent");
  let knot: Record<string, unknown> | null = null;
  if (manifest !== undefined && manifest !== null) {
    if (!isObject(manifest)) throw new Error("initialize: manifest must be an object");
    const unknown = Object.keys(manifest).filter((key) => !MANIFEST_KEYS.includes(key));
    if (unknown.length > 0) throw new Error(`initialize: manifest.${unknown[0]} is not a known key (expected "tool.knot")`);
    const block = manifest["tool.knot"];
    if (!isObject(block)) throw new Error(`initialize: manifest["tool.knot"] must be an object`);
    knot = block;
  }
  return Object.freeze({ name, version, description: description ?? "", manifest: knot, functions: Object.freeze([...new Set(functions as string[])]), fetcher: fetcher === true });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
