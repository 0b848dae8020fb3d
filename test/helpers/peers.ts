/** Python peers for tests, written with the example's knot_peer.py helper (python3 is on the machine). */
import fs from "node:fs";
import path from "node:path";
import { EXAMPLE_PLUGINS } from "./fixtures.ts";

const HELPER_DIR = path.join(EXAMPLE_PLUGINS, "wordcount");

/** Writes an executable `<root>/<plugin>/bin/<file>` whose body defines `peer` functions; `peer.run()` is appended. */
export function writePythonPeer(root: string, plugin: string, file: string, options: { name: string; manifest?: unknown; fetcher?: boolean; body: string }): string {
  const bin = path.join(root, plugin, "bin");
  fs.mkdirSync(bin, { recursive: true });
  const target = path.join(bin, file);
  const source = [
    "#!/usr/bin/env python3",
    "import json, os, sys, time",
    `sys.path.insert(0, ${JSON.stringify(HELPER_DIR)})`,
    "from knot_peer import KnotError, Peer",
    `peer = Peer(name=${JSON.stringify(options.name)}, version="1.0.0", manifest=json.loads(${JSON.stringify(JSON.stringify(options.manifest ?? null))}), fetcher=${options.fetcher ? "True" : "False"})`,
    options.body.trim(),
    "peer.run()",
    "",
  ].join("\n");
  fs.writeFileSync(target, source, { mode: 0o755 });
  return target;
}

/** Waits until `check` is true (polling), or fails after `ms`. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000, what = "condition"): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
