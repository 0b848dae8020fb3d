/**
 * Serves the built web UI (`ui/dist`, made by `npm run build:ui`) at `/`. Only files that exist in
 * the build folder with plain names are served (no path from the request reaches the file
 * system). Every answer carries a Content-Security-Policy that allows scripts from this origin
 * only — no inline script, no eval — so even HTML that slipped into a page could not run.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { KnotError } from "../errors.ts";
import type { PublicContext, Route } from "../http/router.ts";

export const UI_DIST = path.resolve(import.meta.dirname, "../../ui/dist");

export const UI_SECURITY_HEADERS = Object.freeze({
  "content-security-policy": [
    "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self'",
    "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
});

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8", ".svg": "image/svg+xml", ".woff2": "font/woff2",
};
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

async function serveFile(ctx: PublicContext, dir: string, name: string, cache: string): Promise<void> {
  if (!FILE_NAME.test(name) || !(name.slice(name.lastIndexOf(".")) in TYPES)) throw new KnotError("NOT_FOUND", `no such file: ${name}`);
  const files = await fs.readdir(dir).catch(() => [] as string[]);
  if (!files.includes(name)) {
    if (name === "index.html") throw new KnotError("NOT_FOUND", "the web UI is not built: run `npm run build:ui`");
    throw new KnotError("NOT_FOUND", `no such file: ${name}`);
  }
  const body = await fs.readFile(path.join(dir, name));
  ctx.res.writeHead(200, { ...UI_SECURITY_HEADERS, "content-type": TYPES[name.slice(name.lastIndexOf("."))]!, "content-length": body.length, "cache-control": cache });
  ctx.res.end(ctx.req.method === "HEAD" ? undefined : body);
}

export function staticRoutes(options: { dist?: string } = {}): Route[] {
  const dist = options.dist ?? UI_DIST;
  return [
    { method: "GET", path: "/", access: "public", handle: (ctx) => serveFile(ctx, dist, "index.html", "no-cache") },
    { method: "GET", path: "/index.html", access: "public", handle: (ctx) => serveFile(ctx, dist, "index.html", "no-cache") },
    { method: "GET", path: "/assets/:file", access: "public", handle: (ctx) => serveFile(ctx, path.join(dist, "assets"), ctx.params.file ?? "", "no-cache") },
  ];
}
