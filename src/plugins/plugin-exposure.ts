/**
 * What `plugin:` imports may reach while a plugins folder loads: exactly the plugins the current
 * load plan keeps, main.js and libs (module-hooks.ts) and peers' modules alike. A plugin the plan
 * drops leaves nothing importable, so no other plugin's import can run its code.
 */
import fs from "node:fs";
import path from "node:path";
import type { Candidate } from "./candidate.ts";
import { registerPluginRoot, rootKey } from "./module-hooks.ts";
import { manifestPeer, type PluginPeers } from "./peers/plugin-peers.ts";
import { registerPeerModule, removePeerModules, unregisterPeerModule } from "./peers/peer-modules.ts";

export class PluginExposure {
  private readonly root: string;
  private readonly key: string;
  private readonly peerCallTimeoutMs: number;
  /** plugin name → the `plugin:<name>` peer modules registered for it */
  private readonly peerModules = new Map<string, string[]>();

  constructor(root: string, peerCallTimeoutMs: number) {
    this.root = root;
    this.key = rootKey(root);
    this.peerCallTimeoutMs = peerCallTimeoutMs;
    removePeerModules(this.key);
    registerPluginRoot(root, []);
  }

  /** Makes `plugins` (and nothing else) importable. */
  only(plugins: readonly Candidate[]): void {
    registerPluginRoot(this.root, plugins.map((plugin) => plugin.name));
    const wanted = new Set(plugins.map((plugin) => plugin.name));
    for (const [name, modules] of this.peerModules) {
      if (wanted.has(name)) continue;
      for (const module of modules) unregisterPeerModule(this.key, module);
      this.peerModules.delete(name);
    }
    for (const plugin of plugins) if (!this.peerModules.has(plugin.name)) this.peerModules.set(plugin.name, this.registerPeers(plugin));
  }

  /** `plugin:<peer name>` for plugin code; a peer-only plugin's manifest peer also answers `plugin:<plugin name>`. The names registered. */
  private registerPeers(candidate: Candidate): string[] {
    if (!candidate.peers) return [];
    const names: string[] = [];
    const register = (name: string, peer: PluginPeers["peers"][number]) => {
      registerPeerModule(this.key, name, { peer, config: candidate.config, timeoutMs: this.peerCallTimeoutMs });
      names.push(name);
    };
    for (const peer of candidate.peers.peers) register(peer.info.name, peer);
    if (!fs.existsSync(path.join(candidate.dir, "main.js"))) {
      const chosen = manifestPeer(candidate.name, candidate.peers);
      if ("peer" in chosen) register(candidate.name, chosen.peer);
    }
    return names;
  }
}
