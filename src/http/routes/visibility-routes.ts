import { tokenState } from "../../auth/authenticate.ts";
import { KnotError } from "../../errors.ts";
import { describeKind } from "../../mcp/resolver.ts";
import type { McpSurface } from "../../mcp/surface.ts";
import { mcpRefusal } from "../../mcp/tool-gates.ts";
import type { Services } from "../../services.ts";
import { qualifiedName } from "../../tools/tool-names.ts";
import { sendJson } from "../respond.ts";
import type { Route } from "../router.ts";
import { otherUsersTools } from "./visibility-sharing.ts";

/**
 * `GET /api/tools/visibility?user=NAME&token=TOKEN_ID` (admins): what that user (through that
 * token, when given) sees over MCP — every tool with `visible: true` or the reason it is not
 * (missing grant, scope, sharing, shadowed, inactive) — from the same resolver that lists and calls.
 */
export function visibilityRoutes(services: Services, mcp: McpSurface): Route[] {
  return [{
    method: "GET", path: "/api/tools/visibility", access: "api", admin: true,
    async handle(ctx) {
      const name = ctx.url.searchParams.get("user");
      if (!name) throw new KnotError("BAD_REQUEST", "user is required (a user name)", { where: "user" });
      const user = await services.store.getUserByName(name);
      if (!user) throw new KnotError("NOT_FOUND", `no user named "${name}"`, { where: "user" });
      const tokenId = ctx.url.searchParams.get("token");
      let principal;
      if (tokenId) {
        const token = await services.store.getToken(tokenId);
        if (!token || token.userId !== user.id) throw new KnotError("NOT_FOUND", `user "${name}" has no token with id "${tokenId}"`, { where: "token" });
        // A revoked or expired token sees nothing, exactly as every route treats it.
        const state = tokenState(token);
        if (state !== "active") {
          sendJson(ctx.res, 200, { user: user.name, token: tokenId, tokenState: state, scopes: token.scopes, mcp: { allowed: false, reason: "token", detail: `the token is ${state}` }, tools: [] });
          return;
        }
        principal = await services.auth.principalForToken(token);
      } else {
        principal = await services.auth.principalFor(user.id, "token");
      }
      if (!principal) throw new KnotError("NOT_FOUND", `no user named "${name}"`);
      const verdicts = await mcp.resolver.verdicts(principal);
      const tools = verdicts.map((v) => ({
        name: v.tool.name, kind: v.tool.kind, source: describeKind(v.tool),
        ...(v.visible ? { visible: true } : { visible: false, reason: v.refusal.reason, detail: v.refusal.detail }),
      }));
      const own = await services.catalog.list(principal);
      for (const tool of own) {
        if (tool.ownerId === user.id && tool.kind === "tool" && !tool.active) {
          tools.push({ name: tool.name, kind: "user", source: "user tool", visible: false, reason: "inactive", detail: "the tool is switched off (active = false)" });
        }
      }
      for (const tool of await otherUsersTools(services.store, user.id, new Set(own.map((t) => t.id)))) {
        tools.push({ name: qualifiedName(tool.ownerName, tool.name), kind: "user", source: "user tool", visible: false, reason: "sharing", detail: `a tool of another user that is not shared with ${name}` });
      }
      const refused = mcpRefusal(principal);
      sendJson(ctx.res, 200, {
        user: user.name, token: tokenId, ...(tokenId ? { tokenState: "active" } : {}), scopes: principal.scopes,
        mcp: refused ? { allowed: false, reason: refused.reason, detail: refused.detail } : { allowed: true },
        tools,
      });
    },
  }];
}
