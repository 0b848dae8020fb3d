/**
 * The peers of one plugin folder (`<plugin>/bin/*`): started together at load, each bounded by
 * the start timeout; where the plugin's declarations come from; handler functions backed by a
 * peer; and plugin files read peer-first, disk second.
 *
 * "A sick peer can only degrade, never invent": the disk decides whether a file exists, a peer's
 * miss or error falls back to the disk's bytes, and what a peer served is cached.
 */
import fs from "node:fs";
import path from "node:path";
import { currentContext } from "../call-context.ts";
import type { Logger } from "../../log.ts";
import type { HandlerFunction, PluginProblem } from "../registry.ts";
import { startPeer, type PeerHealth, type PeerProcess } from "./peer-process.ts";

export interface PluginPeers {
  readonly peers: readonly PeerProcess[];
  byName(name: string): PeerProcess | undefined;
  /** A handler backed by the first peer that lists `fn` in its functions, or null. */
  handler(fn: string): HandlerFunction | null;
  /** A plugin file's text: peer (fetcher) first, disk second; null when the disk has no such file. */
  readFile(file: string): Promise<string | null>;
  health(): PeerHealth[];
  stop(): Promise<void>;
}

export interface PeerStartOptions {
  readonly runtimeVersion: string;
  readonly logger: Logger;
  readonly startTimeoutMs: number;
  /** The longest a single call may wait for its peer (the pool's deadline usually ends it first). */
  readonly callTimeoutMs: number;
  readonly backoffMs?: number;
}

const FETCH_TIMEOUT_MS = 5_000;

export function hasPeerFolder(dir: string): boolean {
  try {
    return fs.statSync(path.join(dir, "bin")).isDirectory();
  } catch {
    return false;
  }
}

/** Starts every executable in `bin/`; any that fails to start fails the plugin with its reason. */
export async function startPluginPeers(plugin: string, dir: string, options: PeerStartOptions): Promise<{ ok: true; peers: PluginPeers } | { ok: false; problems: PluginProblem[] }> {
  const bin = path.join(dir, "bin");
  const executables = fs.readdirSync(bin, { withFileTypes: true })
    .filter((e) => !e.name.startsWith(".") && (e.isFile() || e.isSymbolicLink()))
    .map((e) => path.join(bin, e.name))
    .filter((file) => isExecutable(file))
    .sort();
  if (executables.length === 0) return { ok: false, problems: [problem(plugin, "bin", `plugin "${plugin}": bin/ holds no executable files`)] };
  const started = await Promise.allSettled(executables.map((executable) => startPeer({
    plugin, executable, cwd: dir, runtimeVersion: options.runtimeVersion, logger: options.logger, startTimeoutMs: options.startTimeoutMs,
    ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
  })));
  const peers = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const problems = started.flatMap((s, i) => (s.status === "rejected"
    ? [problem(plugin, `bin/${path.basename(executables[i]!)}`, `plugin "${plugin}": peer bin/${path.basename(executables[i]!)} ${(s.reason as Error).message}`)]
    : []));
  const names = new Map<string, string>();
  for (const peer of peers) {
    const earlier = names.get(peer.info.name);
    if (earlier) problems.push(problem(plugin, "bin", `plugin "${plugin}": peers ${earlier} and ${path.basename(peer.executable)} both call themselves "${peer.info.name}"`));
    names.set(peer.info.name, path.basename(peer.executable));
  }
  if (problems.length > 0) {
    await Promise.all(peers.map((p) => p.stop()));
    return { ok: false, problems };
  }
  return { ok: true, peers: makePluginPeers(dir, peers, options) };
}

function makePluginPeers(dir: string, peers: PeerProcess[], options: PeerStartOptions): PluginPeers {
  const cache = new Map<string, string>();
  return {
    peers,
    byName: (name) => peers.find((p) => p.info.name === name),
    handler(fn) {
      const peer = peers.find((p) => p.info.functions.includes(fn));
      return peer ? peerHandler(peer, fn, options.callTimeoutMs) : null;
    },
    async readFile(file) {
      const onDisk = path.join(dir, file);
      if (!fs.existsSync(onDisk)) return null;
      const cached = cache.get(file);
      if (cached !== undefined) return cached;
      for (const peer of peers.filter((p) => p.info.fetcher)) {
        const bytes = await peer.fetch(file, FETCH_TIMEOUT_MS);
        if (bytes) {
          const text = bytes.toString("utf8");
          cache.set(file, text);
          return text;
        }
      }
      return fs.readFileSync(onDisk, "utf8");
    },
    health: () => peers.map((p) => p.health()),
    stop: async () => {
      await Promise.all(peers.map((p) => p.stop()));
    },
  };
}

/** A declared handler that a peer serves: the pool's gate, deadline and audit wrap it like any other. */
export function peerHandler(peer: PeerProcess, fn: string, timeoutMs: number): HandlerFunction {
  const handler = (request: unknown) => peer.call(fn, request, currentContext() ?? null, timeoutMs);
  Object.defineProperty(handler, "name", { value: fn });
  return handler;
}

/**
 * Where a plugin's declarations come from: main.js's block if present; else the peer named like
 * the folder; else the only peer; else the plugin fails as ambiguous.
 */
export function manifestPeer(plugin: string, peers: PluginPeers): { peer: PeerProcess } | { problem: PluginProblem } {
  const named = peers.byName(plugin);
  if (named) return { peer: named };
  if (peers.peers.length === 1) return { peer: peers.peers[0]! };
  const list = peers.peers.map((p) => `"${p.info.name}"`).join(", ");
  return { problem: problem(plugin, "bin", `plugin "${plugin}": ambiguous: no main.js, no peer named "${plugin}", and several peers (${list}); name one peer after the folder`) };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function problem(plugin: string, where: string, message: string): PluginProblem {
  return { code: "PLUGIN_LOAD_FAILED", where: `${plugin}: ${where}`, message };
}
