/**
 * Loads a plugins folder into the trusted pool. Declarations are learned by parsing metadata
 * (no plugin code runs for that); only plugins whose metadata, config and client exports are
 * valid, whose dependencies are met and whose MCP tool names are theirs (load-plan.ts) are then
 * imported. A plugin that fails at any step registers nothing and is listed with
 * its reason; the others still load.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildClientModules, certainExportNames } from "../../client-modules/index.ts";
import { PLUGIN_NAME } from "../../sandbox/guest/names.ts";
import { deepFreeze } from "../deep-freeze.ts";
import { KnotError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { silentLogger } from "../log.ts";
import { parsePluginManifest } from "./manifest/index.ts";
import type { Candidate } from "./candidate.ts";
import { bootToolClashes } from "./collisions.ts";
import { declaredHandlers, missingByName, notExported } from "./handler-exports.ts";
import { unloadedImports } from "./import-reach.ts";
import { planLoad } from "./load-plan.ts";
import { pluginImportSites } from "./module-hooks.ts";
import { PluginExposure } from "./plugin-exposure.ts";
import { readLibVersions, readPluginAssets, readPluginFile } from "./plugin-assets.ts";
import { parsePeerManifest } from "./peers/peer-manifest.ts";
import { hasPeerFolder, manifestPeer, startPluginPeers, type PluginPeers } from "./peers/plugin-peers.ts";
import { PluginRegistry, type FailedPlugin, type HandlerFunction, type LoadedPlugin, type PluginProblem } from "./registry.ts";

export interface LoadOptions {
  readonly root: string;
  readonly runtimeVersion: string;
  /** The server config's `[plugins.<name>]` tables. */
  readonly pluginConfig?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Peers' stderr and log notifications go here, under the plugin's name. */
  readonly logger?: Logger;
  /** How long each peer in `bin/` has to answer `initialize` (default 15 s). */
  readonly peerStartTimeoutMs?: number;
  /** A peer call's own bound (the pool's handler deadline usually ends it first). */
  readonly peerCallTimeoutMs?: number;
  /** First restart delay of a crashed peer (default 250 ms, doubling). */
  readonly peerBackoffMs?: number;
}

export async function loadPlugins(options: LoadOptions): Promise<PluginRegistry> {
  const root = path.resolve(options.root);
  const warnings: string[] = [];
  const failed: FailedPlugin[] = [];
  const fail = (name: string, dir: string, problems: PluginProblem[]) => failed.push({ name, dir, reason: problems.map((p) => p.message).join("; "), problems });

  const candidates: Candidate[] = [];
  const disabled: string[] = [];
  const entries = listEntries(root, warnings).filter((entry) => {
    if (options.pluginConfig?.[entry]?.enabled !== false) return true;
    disabled.push(entry); // switched off in the server config: not even its metadata is read
    return false;
  });
  const read = await Promise.all(entries.map((entry) => readCandidate(entry, path.join(root, entry), options)));
  const unclaimed: Candidate[] = [];
  read.forEach((result, i) => {
    if ("problems" in result) fail(entries[i]!, path.join(root, entries[i]!), result.problems);
    else unclaimed.push(result);
  });
  for (const { candidate, problems } of peerNameClaims(unclaimed, entries)) {
    if (problems.length === 0) candidates.push(candidate);
    else {
      await candidate.peers?.stop();
      fail(candidate.name, candidate.dir, problems);
    }
  }

  const { loaded, failures } = await importPlanned(root, candidates, options);
  for (const { candidate, problems } of failures) fail(candidate.name, candidate.dir, problems);
  failed.sort((a, b) => a.name.localeCompare(b.name));
  warnings.push(...unknownConfigTables(options.pluginConfig, root));
  return new PluginRegistry(root, loaded, failed, warnings, disabled);
}

/**
 * Imports, one at a time in folder order, the plugins the load plan keeps, re-planning after each:
 * a plugin that fails at import is out of the next plan, which fails its dependents and the
 * plugins whose code imported it, and may hand its MCP tool names to a plugin that lost them to it.
 */
async function importPlanned(root: string, candidates: readonly Candidate[], options: LoadOptions): Promise<{ loaded: LoadedPlugin[]; failures: Array<{ candidate: Candidate; problems: PluginProblem[] }> }> {
  const exposure = new PluginExposure(root, options.peerCallTimeoutMs ?? 60_000);
  const importFailures = new Map<string, PluginProblem[]>();
  const imported = new Map<string, LoadedPlugin>();
  const ownerOf = (name: string) => candidates.find((c) => c.name === name || c.peers?.peers.some((peer) => peer.info.name === name))?.name ?? null;
  const reach = (candidate: Candidate, loading: ReadonlySet<string>) => unloadedImports(candidate, pluginImportSites(root), ownerOf, loading);
  for (;;) {
    const plan = planLoad(candidates.filter((candidate) => !importFailures.has(candidate.name)), reach);
    exposure.only(plan.kept);
    const next = plan.kept.find((candidate) => !imported.has(candidate.name));
    if (next) {
      const result = await importCandidate(next);
      if ("problems" in result) importFailures.set(next.name, result.problems);
      else imported.set(next.name, result);
      continue;
    }
    const failures = candidates.flatMap((candidate) => {
      const problems = importFailures.get(candidate.name) ?? plan.failed.get(candidate);
      return problems ? [{ candidate, problems }] : [];
    });
    // A failed plugin's peers stop; its imported code stays in Node's module cache (docs/plugins.md).
    await Promise.all(failures.map(({ candidate }) => candidate.peers?.stop()));
    return { loaded: plan.kept.flatMap((candidate) => imported.get(candidate.name) ?? []), failures };
  }
}

function listEntries(root: string, warnings: string[]): string[] {
  if (!fs.existsSync(root)) {
    warnings.push(`plugins folder ${root} does not exist; no plugins loaded`);
    return [];
  }
  const names: string[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith(".")) continue;
    if (!entry.isDirectory()) warnings.push(`skipped ${entry.name}: a plugin is a folder with a main.js or a bin/ of peers, not a loose file`);
    else if (!PLUGIN_NAME.test(entry.name)) warnings.push(`skipped ${entry.name}: plugin folder names use only a-z, 0-9, _ and -`);
    else if (!fs.existsSync(path.join(root, entry.name, "main.js")) && !hasPeerFolder(path.join(root, entry.name))) warnings.push(`skipped ${entry.name}: no main.js and no bin/ folder of peers`);
    else names.push(entry.name);
  }
  return names;
}

async function readCandidate(name: string, dir: string, options: LoadOptions): Promise<Candidate | { problems: PluginProblem[] }> {
  let peers: PluginPeers | null = null;
  try {
    if (hasPeerFolder(dir)) {
      const started = await startPluginPeers(name, dir, {
        runtimeVersion: options.runtimeVersion, logger: options.logger ?? silentLogger, startTimeoutMs: options.peerStartTimeoutMs ?? 15_000,
        callTimeoutMs: options.peerCallTimeoutMs ?? 60_000, ...(options.peerBackoffMs !== undefined ? { backoffMs: options.peerBackoffMs } : {}),
      });
      if (!started.ok) return { problems: started.problems };
      peers = started.peers;
    }
    const result = await readDeclarations(name, dir, options, peers);
    if ("problems" in result) await peers?.stop();
    return result;
  } catch (error) {
    // A file the loader cannot read (a folder where a file should be, no permission): this plugin fails, not the load.
    await peers?.stop();
    return { problems: [unreadable(name, error)] };
  }
}

function unreadable(name: string, error: unknown): PluginProblem {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const file = (error as { path?: unknown } | null)?.path;
  const what = typeof file === "string" ? `${file} cannot be read (${code ?? "error"})` : error instanceof Error ? error.message : String(error);
  return { code: "PLUGIN_LOAD_FAILED", where: name, message: `plugin "${name}": ${what}` };
}

async function readDeclarations(name: string, dir: string, options: LoadOptions, peers: PluginPeers | null): Promise<Candidate | { problems: PluginProblem[] }> {
  const parsed = peerOrBlockManifest(name, dir, options, peers);
  if ("problems" in parsed) return parsed;
  if (!parsed.ok) return { problems: parsed.errors.map(toProblem) };
  const manifest = parsed.manifest;

  const config = { ...(options.pluginConfig?.[name] ?? {}) };
  delete config.enabled;
  const missing = manifest.config.filter((key) => config[key] === undefined);
  if (missing.length > 0) {
    return { problems: missing.map((key) => ({ code: "CONFIG_INVALID", where: `${name}: config`, message: `plugin "${name}": config key "${key}" is required in the server config's [plugins.${name}] table` })) };
  }

  const clashes = bootToolClashes({ name, manifest });
  if (clashes.length > 0) return { problems: clashes };
  const unexported = missingByName(name, manifest, mainExports(dir), peers ? (fn) => peers.handler(fn) !== null : null);
  if (unexported.length > 0) return { problems: unexported };

  const read = readPluginAssets(name, dir, manifest);
  if ("problems" in read) return read;
  const { assets } = read;
  const libRead = readLibVersions(name, dir);
  if ("problems" in libRead) return libRead;
  const { libs } = libRead;
  if (manifest.exports.length === 0) return { name, dir, manifest, config, clientModules: null, peers, assets, libs };
  // Read peer-first (a fetcher peer may serve its own client), disk second; the build itself is synchronous.
  const texts = new Map<string, string>();
  for (const e of manifest.exports) {
    const text = peers ? await peers.readFile(e.file) : null;
    if (text !== null) texts.set(e.file, text);
  }
  const built = buildClientModules(name, manifest.exports, (file) => texts.get(file) ?? readPluginFile(path.join(dir, file)));
  if (!built.ok) {
    return { problems: built.problems.map((p) => ({ code: p.code, where: `${name}: export ${p.file}`, line: p.line, message: `plugin "${name}": export ${p.file} line ${p.line}: ${p.message}` })) };
  }
  return { name, dir, manifest, config, clientModules: built.set, peers, assets, libs };
}

/** main.js's named exports by its syntax (null when it cannot say); none without a main.js. */
function mainExports(dir: string): ReadonlySet<string> | null {
  const main = path.join(dir, "main.js");
  return fs.existsSync(main) ? certainExportNames(readPluginFile(main)) : new Set();
}

/** main.js's block if there is a main.js; else the declarations of the manifest peer. */
function peerOrBlockManifest(name: string, dir: string, options: LoadOptions, peers: PluginPeers | null) {
  const main = path.join(dir, "main.js");
  if (fs.existsSync(main) || !peers) return parsePluginManifest(name, readPluginFile(main), { runtimeVersion: options.runtimeVersion });
  const chosen = manifestPeer(name, peers);
  if ("problem" in chosen) return { problems: [chosen.problem] };
  const knot = chosen.peer.info.manifest ?? { version: chosen.peer.info.version, description: chosen.peer.info.description };
  return parsePeerManifest(name, chosen.peer.info.name, knot, { runtimeVersion: options.runtimeVersion });
}

/**
 * A peer's name is what `plugin:<name>` reaches, so it is claimed like a plugin's: a peer may not
 * call itself after another plugin folder or after a peer of a plugin earlier in folder order.
 */
function peerNameClaims(candidates: readonly Candidate[], folders: readonly string[]): Array<{ candidate: Candidate; problems: PluginProblem[] }> {
  const owners = new Map<string, string>();
  return candidates.map((candidate) => {
    const problems: PluginProblem[] = [];
    for (const peer of candidate.peers?.peers ?? []) {
      const name = peer.info.name;
      if (name === candidate.name) continue;
      const owner = folders.includes(name) ? `plugin "${name}"` : owners.has(name) ? `a peer of plugin "${owners.get(name)}"` : null;
      if (owner) {
        problems.push({ code: "PLUGIN_COLLISION", where: `${candidate.name}: bin/${path.basename(peer.executable)}`, message: `plugin "${candidate.name}": peer bin/${path.basename(peer.executable)} calls itself "${name}", which is ${owner}'s name for plugin:${name} imports` });
      }
    }
    if (problems.length === 0) for (const peer of candidate.peers?.peers ?? []) owners.set(peer.info.name, candidate.name);
    return { candidate, problems };
  });
}

async function importCandidate(candidate: Candidate): Promise<LoadedPlugin | { problems: PluginProblem[] }> {
  const { name, manifest } = candidate;
  let namespace: Record<string, unknown> = {};
  try {
    const main = path.join(candidate.dir, "main.js");
    if (fs.existsSync(main)) namespace = await import(pathToFileURL(main).href) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problems: [{ code: "PLUGIN_LOAD_FAILED", where: `${name}: main.js`, message: `plugin "${name}": main.js failed to import: ${message}` }] };
  }
  const functions = new Map<string, HandlerFunction>();
  const problems: PluginProblem[] = [];
  for (const declared of declaredHandlers(manifest)) {
    const fn = namespace[declared.handler];
    const peerFn = candidate.peers?.handler(declared.handler) ?? null;
    if (typeof fn === "function") functions.set(declared.handler, fn as HandlerFunction);
    else if (peerFn) functions.set(declared.handler, peerFn);
    else problems.push(notExported(name, declared, candidate.peers !== null));
  }
  if (problems.length > 0) return { problems };
  // The config frozen deep, once: a handler cannot change what the next call (or another handler) sees.
  const config = deepFreeze(structuredClone(candidate.config));
  return { name, dir: candidate.dir, manifest, config, clientModules: candidate.clientModules, assets: candidate.assets, libs: candidate.libs, functions, peers: candidate.peers };
}

/** A `[plugins.<name>]` table whose name is no plugin folder is most likely a typo: say so. */
function unknownConfigTables(pluginConfig: LoadOptions["pluginConfig"], root: string): string[] {
  const names = Object.keys(pluginConfig ?? {});
  const present = new Set(fs.existsSync(root) ? fs.readdirSync(root) : []);
  return names.filter((name) => !present.has(name)).map((name) => `config table [plugins.${name}] names no installed plugin (no folder ${name} in ${root}); it is ignored`);
}

function toProblem(error: KnotError): PluginProblem {
  return { code: String(error.code), message: error.message, ...(error.detail.where ? { where: error.detail.where } : {}), ...(error.detail.line ? { line: error.detail.line } : {}) };
}
