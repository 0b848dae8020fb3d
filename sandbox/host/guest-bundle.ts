/**
 * Why: the guest modules (sandbox/guest/*.ts) go into every fresh context. Bundled into one script
 * (esbuild, types stripped, strict mode), the worker compiles them once per isolate with V8's code
 * cache and evaluates one script per context (issue 13). Built once per host process, at the first
 * pool, and handed to each worker at start; the guest files are our own code, never user input.
 */
import { buildSync } from "esbuild";

const ENTRY = new URL("../guest/bundle.ts", import.meta.url).pathname;
let built: string | undefined;

export function guestBundle(): string {
  built ??= buildSync({
    entryPoints: [ENTRY],
    bundle: true,
    format: "iife",
    // ES modules are strict; the script must be too (a failed delete or frozen write throws).
    banner: { js: '"use strict";' },
    target: "es2022",
    platform: "neutral",
    write: false,
    logLevel: "silent",
    legalComments: "none",
    // No comments (they would name our file paths) and less to parse; names stay readable.
    minifyWhitespace: true,
  }).outputFiles[0]!.text;
  return built;
}
