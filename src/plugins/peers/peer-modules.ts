/**
 * `import { fn } from "plugin:<peer name>"` in plugin code: a generated module whose exports are
 * async proxies of the peer's functions. Composition inside the trusted pool, so ungated: the
 * peer runs the function for whoever is calling (the bound call context), like an import of
 * another plugin's main.js runs as the caller.
 */
import { toUserData } from "../../identity/principal.ts";
import { currentContext } from "../call-context.ts";
import type { PeerProcess } from "./peer-process.ts";

export const PEER_MODULE_SCHEME = "knot-peer:";

interface PeerModuleEntry {
  readonly peer: PeerProcess;
  readonly config: Readonly<Record<string, unknown>>;
  readonly timeoutMs: number;
}

/** `<root>|<peer name>` → the peer that serves it. */
const entries = new Map<string, PeerModuleEntry>();

export function registerPeerModule(root: string, name: string, entry: PeerModuleEntry): void {
  entries.set(`${root}|${name}`, entry);
}

export function unregisterPeerModule(root: string, name: string): void {
  entries.delete(`${root}|${name}`);
}

export function removePeerModules(root: string): void {
  for (const key of entries.keys()) if (key.startsWith(`${root}|`)) entries.delete(key);
}

/** The module URL for `plugin:<name>` under `root` when a peer serves it, else null. */
export function peerModuleUrl(root: string, name: string): string | null {
  return entries.has(`${root}|${name}`) ? `${PEER_MODULE_SCHEME}${encodeURIComponent(`${root}|${name}`)}` : null;
}

/** Source of the generated module for a `knot-peer:` URL. */
export function peerModuleSource(url: string): string {
  const key = decodeURIComponent(url.slice(PEER_MODULE_SCHEME.length));
  const entry = entries.get(key);
  if (!entry) throw new Error(`cannot import peer module ${url}: the peer is not loaded`);
  const self = JSON.stringify(import.meta.url);
  const lines = [`import { peerFunction } from ${self};`];
  entry.peer.info.functions.forEach((fn, i) => {
    lines.push(`const f${i} = peerFunction(${JSON.stringify(key)}, ${JSON.stringify(fn)});`, `export { f${i} as ${fn} };`);
  });
  return lines.join("\n");
}

/**
 * An async proxy: `await fn(params)` runs the peer's function as the current caller. Imported by
 * the module source peerModuleSource writes, which no static analysis sees.
 * @public
 */
export function peerFunction(key: string, fn: string): (params?: unknown) => Promise<unknown> {
  const proxy = async (params: unknown = {}) => {
    const entry = entries.get(key);
    if (!entry) throw new Error(`peer function ${fn} is no longer loaded`);
    const context = currentContext() ?? null;
    const name = key.slice(key.lastIndexOf("|") + 1);
    const request = {
      method: "CALL", path: `plugin:${name}/${fn}`, params: params === undefined ? {} : JSON.parse(JSON.stringify(params)),
      config: structuredClone(entry.config), user: context ? toUserData(context.principal) : null,
    };
    return entry.peer.call(fn, request, context, entry.timeoutMs);
  };
  Object.defineProperty(proxy, "name", { value: fn });
  return proxy;
}
