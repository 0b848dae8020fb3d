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
      const result = await services.pool.dispatch(ctx.params.plugin ?? "", ctx.params.fn ?? "", {
        principal: ctx.principal, method, params, requestId: ctx.requestId,
      });
      sendResult(ctx.res, result);
    },
  }];
}
