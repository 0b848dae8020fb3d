import { toUserData } from "../../identity/principal.ts";
import type { Services } from "../../services.ts";
import { sendJson } from "../respond.ts";
import type { Route } from "../router.ts";
import { describePlugins } from "./describe-plugins.ts";

export function coreRoutes(services: Services): Route[] {
  return [
    {
      method: "GET", path: "/healthz", access: "public",
      handle: (ctx) => sendJson(ctx.res, 200, { ok: true, version: services.runtimeVersion }),
    },
    {
      method: "GET", path: "/api/me", access: "api-read",
      handle: (ctx) => sendJson(ctx.res, 200, { ...toUserData(ctx.principal), tokenId: ctx.principal.tokenId, scopes: ctx.principal.scopes }),
    },
    {
      method: "GET", path: "/api/plugins", access: "api", admin: true,
      handle: (ctx) => sendJson(ctx.res, 200, describePlugins(services.pool.registry)),
    },
  ];
}
