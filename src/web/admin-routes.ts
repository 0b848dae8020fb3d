/**
 * Why: users, group memberships and grants decide what everyone may do, so every route here is
 * for admins only (the router refuses others before a handler runs) and needs a credential that may
 * change things. The rules themselves (names, the no-lock-out rule, events, tool-list changes) are
 * the admin layer's (src/admin), shared with the CLI.
 */
import { adminOf } from "../admin/admin.ts";
import { parseSubject } from "../admin/grants.ts";
import { KnotError } from "../errors.ts";
import { sendJson } from "../http/respond.ts";
import type { HttpContext, Route } from "../http/router.ts";
import { BUILTIN_PERMISSIONS, mayWrite } from "../identity/principal.ts";
import type { Services } from "../services.ts";

function mustWrite(ctx: HttpContext): void {
  if (!mayWrite(ctx.principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: this credential may not change things");
}

export function adminRoutes(services: Services): Route[] {
  const admin = adminOf(services);
  const registry = services.pool.registry;
  return [
    { method: "GET", path: "/api/users", access: "api", admin: true, handle: async (ctx) => sendJson(ctx.res, 200, { users: await admin.users.describeAll() }) },
    {
      method: "POST", path: "/api/users", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const body = await ctx.json();
        const user = await admin.users.create({ name: body.name, isAdmin: body.isAdmin });
        sendJson(ctx.res, 201, { user: { ...user, groups: [], grants: [] } });
      },
    },
    {
      method: "PATCH", path: "/api/users/:id", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const body = await ctx.json();
        await admin.users.setAdmin(ctx.principal.user.id, ctx.params.id!, body.isAdmin);
        sendJson(ctx.res, 200, { user: (await admin.users.describeAll()).find((u) => u.id === ctx.params.id) });
      },
    },
    {
      method: "PUT", path: "/api/users/:id/groups", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const body = await ctx.json();
        sendJson(ctx.res, 200, { groups: await admin.users.setGroups(ctx.params.id!, body.groups) });
      },
    },
    { method: "GET", path: "/api/groups", access: "api", admin: true, handle: async (ctx) => sendJson(ctx.res, 200, { groups: await services.store.listGroups() }) },
    {
      method: "GET", path: "/api/grants", access: "api", admin: true,
      async handle(ctx) {
        const permissions = [
          { plugin: null, ids: Object.values(BUILTIN_PERMISSIONS) },
          ...[...registry.loaded.values()].map((p) => ({ plugin: p.name, ids: [...p.manifest.permissions] })),
        ];
        sendJson(ctx.res, 200, { grants: await admin.grants.list(), permissions });
      },
    },
    {
      method: "POST", path: "/api/grants", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const body = await ctx.json();
        await admin.grants.grant(parseSubject(body.subject), body.permission, ctx.principal);
        sendJson(ctx.res, 201, { granted: true });
      },
    },
    {
      method: "DELETE", path: "/api/grants", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const q = ctx.url.searchParams;
        if (!(await admin.grants.revoke(parseSubject(q.get("subject")), q.get("permission"), ctx.principal))) throw new KnotError("NOT_FOUND", "no such grant");
        sendJson(ctx.res, 200, { revoked: true });
      },
    },
  ];
}
