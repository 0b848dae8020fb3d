/**
 * Plugin pages (`[[tool.knot.pages]]`): listed for the users who pass each page's gate, and
 * rendered by calling the page's handler as the requesting user. The gate is checked before any
 * handler code runs, exactly as for a declared handler; the result goes through
 * `renderPageDocument`, so markdown arrives sanitised and everything else as text.
 *
 * Interactive pages: a form or button posts to `POST /api/pages/:plugin/:path/actions/:action`,
 * an API route (so a cookie session needs the CSRF proof like every other POST). The action is a
 * declared handler of the page's own plugin, dispatched through the one gate and audited like a
 * call to `/plugins/…`; its answer comes back as a checked envelope (page-envelope.ts).
 */
import { KnotError } from "../errors.ts";
import { queryParams } from "../http/body.ts";
import { sendJson } from "../http/respond.ts";
import type { HttpContext, Route } from "../http/router.ts";
import { auditedHandlerCall, handlerMasks } from "../http/routes/plugin-routes.ts";
import { assertPluginGate, pluginGateRefusal, type PluginTarget } from "../identity/plugin-gate.ts";
import type { Principal } from "../identity/principal.ts";
import { resultValue } from "../plugins/plugin-pool.ts";
import type { ResolvedPage } from "../plugins/registry.ts";
import type { Services } from "../services.ts";
import { assetUrl } from "../http/routes/navigation-routes.ts";
import type { RenderedBlock } from "./page-document.ts";
import { renderPageDocument } from "./page-document.ts";
import { readEnvelope } from "./page-envelope.ts";
import { FORM_LIMITS, isActionName, readOptions } from "./page-forms.ts";

/** A page is gated like its handler: its permission, and scopes naming `plugin.<plugin>.<handler>` or that permission. */
const targetOf = (page: ResolvedPage): PluginTarget => ({ plugin: page.plugin.name, name: page.decl.handler, permission: page.decl.permission, write: false, kind: "page" });
const passes = (principal: Principal, page: ResolvedPage) => pluginGateRefusal(principal, targetOf(page)) === null;

export function pageRoutes(services: Services): Route[] {
  const registry = services.pool.registry;
  /** The page the route names, after its gate: NOT_FOUND when there is none. */
  const pageOf = (ctx: HttpContext): ResolvedPage => {
    const pagePath = `/${ctx.params.path ?? ""}`;
    const page = registry.pages().find((p) => p.plugin.name === ctx.params.plugin && p.decl.path === pagePath);
    if (!page || !page.fn) throw new KnotError("NOT_FOUND", `plugin "${ctx.params.plugin}" has no page ${pagePath}`);
    assertPluginGate(ctx.principal, targetOf(page));
    return page;
  };
  /** A declared handler of `plugin`, gated and audited like a call to `/plugins/<plugin>/<fn>`. */
  const callHandler = async (ctx: HttpContext, plugin: string, fn: string, method: string, params: Record<string, unknown>) =>
    resultValue(await auditedHandlerCall(services, ctx, plugin, fn, method, async () => params));
  /** Selects with `data`: their options from that handler of the page's plugin, as the user (a refusal is a problem, not fatal). */
  const fillOptions = async (ctx: HttpContext, plugin: string, blocks: RenderedBlock[], problems: string[]) => {
    const answers = new Map<string, ReturnType<typeof readOptions>>();
    for (const block of blocks) {
      if (block.type !== "form") continue;
      for (const field of block.fields) {
        if (field.data === undefined) continue;
        if (!answers.has(field.data)) {
          if (answers.size >= FORM_LIMITS.dataHandlers) {
            answers.set(field.data, `at most ${FORM_LIMITS.dataHandlers} data handlers per page`);
          } else if (registry.handler(plugin, field.data)?.decl.write) {
            // Options are read while rendering (a GET, no CSRF proof): a handler that changes things never runs here.
            answers.set(field.data, "is declared write/destructive; a data handler must not change anything");
          } else {
            answers.set(field.data, await callHandler(ctx, plugin, field.data, "GET", {}).then(
              (value) => readOptions(value, (v) => (typeof v === "string" ? v : JSON.stringify(v) ?? "")),
              (error: unknown) => `${error instanceof KnotError ? error.code : "INTERNAL"}: ${error instanceof Error ? error.message : "failed"}`,
            ));
          }
        }
        const answer = answers.get(field.data)!;
        if (typeof answer === "string") problems.push(`field ${field.name}: data handler ${field.data}: ${answer}`);
        else field.options = answer;
      }
    }
  };
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
        const page = pageOf(ctx);
        const pagePath = page.decl.path;
        const tool = `page:${page.plugin.name}${pagePath}`;
        const params = queryParams(ctx.url.searchParams);
        const masked = handlerMasks(services, page.plugin.name, page.decl.handler);
        const result = await services.audit.around({ principal: ctx.principal, surface: "http", tool, args: params, masked, requestId: ctx.requestId }, async () => ({
          value: await services.pool.invoke(page.plugin, page.fn!, pagePath, { principal: ctx.principal, method: "GET", params, requestId: ctx.requestId }),
          outcome: "ok",
        }));
        const rendered = renderPageDocument(resultValue(result));
        await fillOptions(ctx, page.plugin.name, rendered.blocks, rendered.problems);
        sendJson(ctx.res, 200, { plugin: page.plugin.name, path: pagePath, label: page.decl.label, ...rendered });
      },
    },
    {
      method: "POST", path: "/api/pages/:plugin/:path/actions/:action", access: "api",
      async handle(ctx) {
        const page = pageOf(ctx);
        const action = ctx.params.action ?? "";
        if (!isActionName(action)) throw new KnotError("NOT_ADDRESSABLE", "not addressable: an action is the name of a handler of the page's plugin", { where: `${page.plugin.name}/${action}` });
        const params = await ctx.bodyParams();
        const envelope = readEnvelope(await callHandler(ctx, page.plugin.name, action, "POST", params));
        if (envelope.blocks) await fillOptions(ctx, page.plugin.name, envelope.blocks, envelope.problems);
        sendJson(ctx.res, 200, envelope);
      },
    },
  ];
}
