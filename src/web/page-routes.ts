/**
 * Plugin pages (`[[tool.knot.pages]]`): listed for the users who pass each page's gate, and
 * rendered by calling the page's handler as the requesting user. The gate is checked before any
 * handler code runs, exactly as for a declared handler; the result goes through
 * `renderPageDocument`, so markdown arrives sanitised and everything else as text.
 */
import { KnotError } from "../errors.ts";
import { queryParams } from "../http/body.ts";
import { sendJson } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { assertPluginGate, pluginGateRefusal, type PluginTarget } from "../identity/plugin-gate.ts";
import type { Principal } from "../identity/principal.ts";
import { resultValue } from "../plugins/plugin-pool.ts";
import type { ResolvedPage } from "../plugins/registry.ts";
import type { Services } from "../services.ts";
import { assetUrl } from "../http/routes/navigation-routes.ts";
import { renderPageDocument } from "./page-document.ts";

/** A page is gated like its handler: its permission, and scopes naming `plugin.<plugin>.<handler>` or that permission. */
const targetOf = (page: ResolvedPage): PluginTarget => ({ plugin: page.plugin.name, name: page.decl.handler, permission: page.decl.permission, write: false, kind: "page" });
const passes = (principal: Principal, page: ResolvedPage) => pluginGateRefusal(principal, targetOf(page)) === null;

export function pageRoutes(services: Services): Route[] {
  const registry = services.pool.registry;
  return [
    {
      method: "GET", path: "/api/pages", access: "api",
      handle: (ctx) => sendJson(ctx.res, 200, {
        pages: registry.pages().filter((page) => passes(ctx.principal, page)).map((page) => ({
          plugin: page.plugin.name, path: page.decl.path, label: page.decl.label, permission: page.decl.permission,
          menuLabel: page.decl.menuLabel ?? page.decl.label, icon: page.decl.icon ? assetUrl(page.plugin.name, page.decl.icon) : null,
          default: page.decl.default === true,
        })),
      }),
    },
    {
      // The page path travels as one segment (`/status` → `status`, `/a/b` → `a%2Fb`).
      method: "GET", path: "/api/pages/:plugin/:path", access: "api",
      async handle(ctx) {
        const pagePath = `/${ctx.params.path ?? ""}`;
        const page = registry.pages().find((p) => p.plugin.name === ctx.params.plugin && p.decl.path === pagePath);
        if (!page || !page.fn) throw new KnotError("NOT_FOUND", `plugin "${ctx.params.plugin}" has no page ${pagePath}`);
        assertPluginGate(ctx.principal, targetOf(page));
        const tool = `page:${page.plugin.name}${pagePath}`;
        const params = queryParams(ctx.url.searchParams);
        const result = await services.audit.around({ principal: ctx.principal, surface: "http", tool, args: params, requestId: ctx.requestId }, async () => ({
          value: await services.pool.invoke(page.plugin, page.fn, pagePath, { principal: ctx.principal, method: "GET", params, requestId: ctx.requestId }),
          outcome: "ok",
        }));
        sendJson(ctx.res, 200, { plugin: page.plugin.name, path: pagePath, label: page.decl.label, ...renderPageDocument(resultValue(result)) });
      },
    },
  ];
}
