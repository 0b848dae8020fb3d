import { KnotError } from "../../errors.ts";
import type { Services } from "../../services.ts";
import { queryParams } from "../body.ts";
import { sendResult } from "../respond.ts";
import type { Route } from "../router.ts";

/**
 * `GET|POST /plugins/<name>/<fn>`: declared handlers only, as the requesting user. Params are
 * the query merged with the JSON body (the body wins; JSON types survive).
 */
export function pluginRoutes(services: Services): Route[] {
  return [{
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    path: "/plugins/:plugin/:fn",
    access: "plugin",
    async handle(ctx) {
      const method = ctx.req.method === "HEAD" ? "GET" : (ctx.req.method ?? "GET");
      const body = method === "GET" ? {} : await ctx.json();
      const params = { ...queryParams(ctx.url.searchParams), ...body };
      const plugin = ctx.params.plugin ?? "";
      const fn = ctx.params.fn ?? "";
      const started = performance.now();
      const audit = (outcome: string, result?: unknown) => services.audit.record({
        principal: ctx.principal, surface: ctx.principal.via === "loopback" ? "loopback" : "http", tool: `${plugin}/${fn}`,
        args: params, outcome, durationMs: performance.now() - started, result, requestId: ctx.requestId,
      });
      let result;
      try {
        result = await services.pool.dispatch(plugin, fn, { principal: ctx.principal, method, params, requestId: ctx.requestId });
      } catch (error) {
        await audit(error instanceof KnotError ? String(error.code) : "INTERNAL");
        throw error;
      }
      await audit("ok", result.kind === "json" ? result.value : undefined);
      sendResult(ctx.res, result);
    },
  }];
}
