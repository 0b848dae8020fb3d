/**
 * Everything the web UI adds to the one HTTP server: the built UI at `/`, sign-in/out, tokens,
 * users and grants (admins), plugin pages, editor completions and the streamed run.
 * The composition root adds `...webRoutes(services)` to its route table.
 */
import { sendJson } from "../http/respond.ts";
import { mustScopeUserTools } from "../http/routes/tool-routes.ts";
import { toMcpTool } from "../mcp/listing.ts";
import { verifyStoredAudit } from "../store/audit-hash.ts";
import type { UserToolRecord } from "../store/store.ts";
import { parseUserToolInput } from "../tools/user-tool-input.ts";
import type { Route } from "../http/router.ts";
import type { Services } from "../services.ts";
import { adminRoutes } from "./admin-routes.ts";
import { editorModules } from "./editor-modules.ts";
import { pageRoutes } from "./page-routes.ts";
import { runStreamRoutes } from "./run-stream-route.ts";
import { sessionRoutes } from "./session-routes.ts";
import { staticRoutes } from "./static-routes.ts";
import { tokenRoutes } from "./token-routes.ts";

export function webRoutes(services: Services, options: { dist?: string } = {}): Route[] {
  return [
    ...staticRoutes(options),
    ...sessionRoutes(services),
    ...tokenRoutes(services),
    ...adminRoutes(services),
    ...pageRoutes(services),
    ...runStreamRoutes(services),
    {
      method: "GET", path: "/api/editor/modules", access: "api",
      handle: async (ctx) => {
        mustScopeUserTools(ctx.principal); // it lists the caller's libs and those shared with them
        sendJson(ctx.res, 200, { modules: await editorModules(ctx.principal, services.pool.registry, services.catalog) });
      },
    },
    {
      // The audit page's chain status: every row's hash checked against its contents and predecessor.
      method: "GET", path: "/api/audit/chain", access: "api", admin: true,
      handle: async (ctx) => sendJson(ctx.res, 200, await verifyStoredAudit(services.store)),
    },
    {
      // The tool as an assistant's tools/list shows it, built by the MCP surface's own code.
      method: "POST", path: "/api/editor/preview", access: "api",
      async handle(ctx) {
        const body = await ctx.json();
        const input = parseUserToolInput({ ...body, code: "" });
        const record = { ...input, id: "preview", ownerId: ctx.principal.user.id, ownerName: ctx.principal.user.name, libPins: [], version: 0, createdAt: "", updatedAt: "" } satisfies UserToolRecord;
        sendJson(ctx.res, 200, { tool: toMcpTool({ kind: "user", name: input.name, user: record }, services.runner) });
      },
    },
  ];
}
