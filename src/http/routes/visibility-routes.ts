import { tokenState } from "../../auth/authenticate.ts";
import { KnotError } from "../../errors.ts";
import { describeKind } from "../../mcp/resolver.ts";
import type { McpSurface } from "../../mcp/surface.ts";
import { mcpRefusal } from "../../mcp/tool-gates.ts";
import type { Services } from "../../services.ts";
import { qualifiedName } from "../../tools/tool-names.ts";
import type { UserRecord } from "../../store/store.ts";
import type { Principal } from "../../identity/principal.ts";
import { sendJson } from "../respond.ts";
import type { Route } from "../router.ts";
import { otherUsersTools } from "./visibility-sharing.ts";

/**
 * `GET /api/tools/visibility?user=NAME&token=TOKEN_ID` (admins): what that user (through that
 * token, when given) sees over MCP — every tool with `visible: true` or the reason it is not
 * (missing grant, scope, sharing, shadowed, inactive) — from the same resolver that lists and calls.
 * `GET /api/me/visibility[?token=TOKEN_ID]`: the same for the caller and their own tokens.
 */
export function visibilityRoutes(services: Services, mcp: McpSurface): Route[] {
  return [
    {
      method: "GET", path: "/api/tools/visibility", access: "api", admin: true,
      async handle(ctx) {
        const name = ctx.url.searchParams.get("user");
        if (!name) throw new KnotError("BAD_REQUEST", "user is required (a user name)", { where: "user" });
        const user = await services.store.getUserByName(name);
        if (!user) throw new KnotError("NOT_FOUND", `no user named "${name}"`, { where: "user" });
        sendJson(ctx.res, 200, await visibilityReport(services, mcp, user, ctx.url.searchParams.get("token"), { othersTools: true }));
      },
    },
    {
      // Every user, about themselves (issue 15): the same report, for the caller's own user and
      // (with ?token=ID) one of their own tokens. Other users' unshared tools are not theirs to
      // know about, so the "sharing" lines are left out. Not on the loopback ("api"): a tool run
      // as you does not get to read your grants. A scoped credential (an assistant's) learns only
      // about itself, never about the wider user behind it.
      method: "GET", path: "/api/me/visibility", access: "api",
      async handle(ctx) {
        const user = ctx.principal.user;
        const tokenId = ctx.url.searchParams.get("token");
        if (ctx.principal.scopes !== null) {
          if (tokenId !== null && tokenId !== ctx.principal.tokenId) throw new KnotError("PERMISSION_DENIED", "a scoped token may only ask about itself: leave out token=");
          sendJson(ctx.res, 200, await visibilityReport(services, mcp, user, ctx.principal.tokenId, { othersTools: false }, ctx.principal));
          return;
        }
        sendJson(ctx.res, 200, await visibilityReport(services, mcp, user, tokenId, { othersTools: false }));
      },
    },
  ];
}

async function visibilityReport(
  services: Services, mcp: McpSurface, user: UserRecord, tokenId: string | null, options: { othersTools: boolean }, caller?: Principal,
) {
  const name = user.name;
  let principal;
  if (caller) {
    principal = caller;
  } else if (tokenId) {
    const token = await services.store.getToken(tokenId);
    if (!token || token.userId !== user.id) throw new KnotError("NOT_FOUND", `user "${name}" has no token with id "${tokenId}"`, { where: "token" });
    // A revoked or expired token sees nothing, exactly as every route treats it.
    const state = tokenState(token);
    if (state !== "active") {
      return { user: user.name, token: tokenId, tokenState: state, scopes: token.scopes, mcp: { allowed: false, reason: "token", detail: `the token is ${state}` }, tools: [] };
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
  if (options.othersTools) {
    for (const tool of await otherUsersTools(services.store, user.id, new Set(own.map((t) => t.id)))) {
      tools.push({ name: qualifiedName(tool.ownerName, tool.name), kind: "user", source: "user tool", visible: false, reason: "sharing", detail: `a tool of another user that is not shared with ${name}` });
    }
  }
  const refused = mcpRefusal(principal);
  return {
    user: user.name, token: tokenId, ...(tokenId ? { tokenState: "active" } : {}), scopes: principal.scopes,
    mcp: refused ? { allowed: false, reason: refused.reason, detail: refused.detail } : { allowed: true },
    tools,
  };
}
