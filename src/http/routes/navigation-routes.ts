/**
 * What the web UI's navigation shows of each plugin, per user: `GET /api/plugins/navigation`
 * lists menus and field handlers only to users who pass each gate (its permission; a field
 * handler also needs its handler's gate, since using it calls that handler), plus icons and
 * logos. `GET /api/plugins/:plugin/assets/:file` serves an icon or logo as sanitised at load,
 * under a CSP that forbids everything, so even a missed trick in a file cannot run or fetch.
 */
import { KnotError } from "../../errors.ts";
import { pluginGateRefusal } from "../../identity/plugin-gate.ts";
import { hasPermission, type Principal } from "../../identity/principal.ts";
import type { LoadedPlugin } from "../../plugins/registry.ts";
import type { Services } from "../../services.ts";
import { sendJson } from "../respond.ts";
import type { Route } from "../router.ts";

const passesPermission = (principal: Principal, permission: string | null) => permission === null || hasPermission(principal, permission);

export function assetUrl(plugin: string, file: string): string {
  return `/api/plugins/${encodeURIComponent(plugin)}/assets/${encodeURIComponent(file)}`;
}

export function describeNavigation(plugin: LoadedPlugin, principal: Principal) {
  const { manifest } = plugin;
  const icon = (file: string | null) => (file ? assetUrl(plugin.name, file) : null);
  const handlerGate = (name: string) => {
    const decl = manifest.handlers.find((h) => h.handler === name);
    return decl !== undefined && pluginGateRefusal(principal, { plugin: plugin.name, name, permission: decl.permission, write: decl.write, kind: "handler" }) === null;
  };
  return {
    name: plugin.name,
    version: manifest.version,
    logoLight: icon(manifest.logoLight),
    logoDark: icon(manifest.logoDark),
    icons: manifest.icons.map((file) => ({ file, url: assetUrl(plugin.name, file) })),
    menus: manifest.menus.filter((m) => passesPermission(principal, m.permission)).map((m) => ({ label: m.label, url: m.url, icon: icon(m.icon) })),
    fieldHandlers: manifest.fieldHandlers
      .filter((f) => passesPermission(principal, f.permission) && handlerGate(f.handler))
      .map((f) => ({ label: f.label, handler: f.handler, url: `/plugins/${plugin.name}/${f.handler}` })),
  };
}

export function navigationRoutes(services: Services): Route[] {
  const registry = services.pool.registry;
  return [
    {
      method: "GET", path: "/api/plugins/navigation", access: "api",
      handle: (ctx) => sendJson(ctx.res, 200, { plugins: [...registry.loaded.values()].map((plugin) => describeNavigation(plugin, ctx.principal)) }),
    },
    {
      // The file travels as one segment (`icons/chart.svg` → `icons%2Fchart.svg`).
      method: "GET", path: "/api/plugins/:plugin/assets/:file", access: "api",
      handle(ctx) {
        const svg = registry.loaded.get(ctx.params.plugin ?? "")?.assets.get(ctx.params.file ?? "");
        if (svg === undefined) throw new KnotError("NOT_FOUND", `plugin "${ctx.params.plugin}" declares no icon or logo "${ctx.params.file}"`);
        ctx.res.writeHead(200, {
          "content-type": "image/svg+xml; charset=utf-8",
          "content-length": Buffer.byteLength(svg),
          "content-security-policy": "default-src 'none'; sandbox",
          "x-content-type-options": "nosniff",
          "cache-control": "private, max-age=300",
        });
        ctx.res.end(svg);
      },
    },
  ];
}
