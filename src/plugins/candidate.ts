/** A plugin whose declarations, config and client exports are valid: what may be imported. */
import type { ClientModuleSet } from "../../client-modules/index.ts";
import type { PluginManifest } from "./manifest-types.ts";
import type { PluginAssets } from "./plugin-assets.ts";
import type { PluginPeers } from "./peers/plugin-peers.ts";

export interface Candidate {
  readonly name: string;
  readonly dir: string;
  readonly manifest: PluginManifest;
  readonly config: Record<string, unknown>;
  readonly clientModules: ClientModuleSet | null;
  readonly peers: PluginPeers | null;
  readonly assets: PluginAssets;
  readonly libs: ReadonlyMap<string, string | null>;
}
