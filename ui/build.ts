/**
 * Builds the web UI into ui/dist with esbuild: one JS bundle (Preact + CodeMirror) and one CSS
 * file, plus index.html. Run by `npm run build:ui` (and at install time); the server serves the
 * result at `/`. No CDN and nothing fetched at run time: everything comes from node_modules.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const UI = import.meta.dirname;
export const UI_DIST = path.join(UI, "dist");

export async function buildUi(options: { outdir?: string; minify?: boolean } = {}): Promise<{ outdir: string; bytes: number }> {
  const outdir = options.outdir ?? UI_DIST;
  await fs.rm(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: { app: path.join(UI, "src/main.tsx") },
    outdir: path.join(outdir, "assets"),
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: options.minify ?? true,
    sourcemap: "linked",
    legalComments: "linked",
    metafile: true,
    logLevel: "warning",
  });
  await fs.copyFile(path.join(UI, "index.html"), path.join(outdir, "index.html"));
  const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
  return { outdir, bytes };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const { outdir, bytes } = await buildUi();
  process.stdout.write(`web UI built in ${Math.round(performance.now() - started)} ms: ${path.relative(process.cwd(), outdir) || outdir} (${Math.round(bytes / 1024)} KiB)\n`);
}
