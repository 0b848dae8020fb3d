import type { Services } from "../../services.ts";
import { maskedParameters } from "../../tools/run-outcome.ts";
import { queryParams } from "../body.ts";
import { sendResult } from "../respond.ts";
import type { HttpContext, Route } from "../router.ts";
import type { ToolResult } from "../../../sandbox/protocol.ts";

/**
 * `GET|POST /plugins/<name>/<fn>`: declared handlers only, as the requesting user. Params are
 * the query merged with the body — JSON (types survive) or form-encoded (strings; repeated keys
 * become lists) — and the body wins. A handler declares no
 * parameters of its own, so the audit row masks the names its MCP tools declare `secret` or
 * `personal`: a password masked over MCP is masked over HTTP and the loopback too.
 */
export function pluginRoutes(services: Services): Route[] {
  return [{
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    path: "/plugins/:plugin/:fn",
    access: "plugin",
    async handle(ctx) {
      const method = ctx.req.method === "HEAD" ? "GET" : (ctx.req.method ?? "GET");
      const plugin = ctx.params.plugin ?? "";
      const fn = ctx.params.fn ?? "";
      // Params are read inside the audited call: a body refused for its nesting (or bad JSON) is an audited refusal too.
      const result = await auditedHandlerCall(services, ctx, plugin, fn, method, async () => ({
        ...queryParams(ctx.url.searchParams), ...(method === "GET" ? {} : await ctx.bodyParams()),
      }));
      sendResult(ctx.res, result);
    },
  }];
}

/**
 * One call of a declared handler as the requesting user, audited once as `<plugin>/<fn>` with its
 * MCP tools' masks: the `/plugins/…` route and page actions and data handlers both go through it.
 */
export async function auditedHandlerCall(
  services: Services, ctx: HttpContext, plugin: string, fn: string, method: string, readParams: () => Promise<Record<string, unknown>>,
): Promise<ToolResult> {
  return services.audit.around({
    principal: ctx.principal, surface: ctx.principal.via === "loopback" ? "loopback" : "http", tool: `${plugin}/${fn}`,
    args: {}, masked: handlerMasks(services, plugin, fn), requestId: ctx.requestId,
  }, async (call) => {
    const params = await readParams();
    call.args = params;
    // A loopback call acts for the assistant whose MCP call started the run, if one did.
    const assistant = ctx.principal.via === "loopback" ? (ctx.principal.assistant ?? null) : null;
    const value = await services.pool.dispatch(plugin, fn, { principal: ctx.principal, method, params, requestId: ctx.requestId, assistant });
    return { value, outcome: "ok", result: value.kind === "json" ? value.value : undefined };
  });
}

/** The argument names an audit row of a call to `plugin/fn` masks: what its MCP tools declare secret or personal. */
export function handlerMasks(services: Services, plugin: string, fn: string): ReturnType<typeof maskedParameters> {
  return maskedParameters(
    services.pool.registry.mcpTools().filter((tool) => tool.plugin.name === plugin && tool.decl.handler === fn).flatMap((tool) => tool.decl.parameters),
  );
}
