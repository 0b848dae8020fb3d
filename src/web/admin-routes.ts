/**
 * Why: users, group memberships and grants decide what everyone may do, so every route here is
 * for admins only (the router refuses others before a handler runs), needs a credential that may
 * change things, and refuses an admin removing their own admin flag (no accidental lock-out).
 */
import { KnotError } from "../errors.ts";
import { sendJson } from "../http/respond.ts";
import type { HttpContext, Route } from "../http/router.ts";
import { grantChangedEvent } from "../events/product-events.ts";
import { BUILTIN_PERMISSIONS, mayWrite } from "../identity/principal.ts";
import type { Services } from "../services.ts";
import type { GrantRecord } from "../store/store.ts";

export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const GROUP_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const PERMISSION = /^[a-z0-9_]+(\.[a-z0-9_-]+)*$/;

function mustWrite(ctx: HttpContext): void {
  if (!mayWrite(ctx.principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: this credential may not change things");
}

/** Whose visible tool set a grant change may alter: the user, or (for a group) everyone connected. */
function affected(subject: GrantRecord["subject"]): string[] | undefined {
  return subject.kind === "user" ? [subject.userId] : undefined;
}

/** `user:<id>` or `group:<name>` → a grant subject. */
export function parseSubject(text: unknown): GrantRecord["subject"] {
  if (typeof text === "string" && text.startsWith("user:") && text.length > 5) return { kind: "user", userId: text.slice(5) };
  if (typeof text === "string" && text.startsWith("group:") && GROUP_NAME.test(text.slice(6))) return { kind: "group", group: text.slice(6) };
  throw new KnotError("INVALID_ARGUMENT", 'subject must be "user:<id>" or "group:<name>"', { where: "subject" });
}

function parsePermission(text: unknown): string {
  if (typeof text !== "string" || !PERMISSION.test(text)) throw new KnotError("INVALID_ARGUMENT", "permission must be a permission id such as plugin.demo.view_dashboard", { where: "permission" });
  return text;
}

export function adminRoutes(services: Services): Route[] {
  const { store } = services;
  const registry = services.pool.registry;
  const describeUsers = async () => {
    const [users, grants] = await Promise.all([store.listUsers(), store.listGrants()]);
    return Promise.all(users.map(async (user) => ({
      ...user,
      groups: await store.groupsOf(user.id),
      grants: grants.filter((g) => g.subject.kind === "user" && g.subject.userId === user.id).map((g) => g.permission),
    })));
  };
  return [
    { method: "GET", path: "/api/users", access: "api", admin: true, handle: async (ctx) => sendJson(ctx.res, 200, { users: await describeUsers() }) },
    {
      method: "POST", path: "/api/users", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const body = await ctx.json();
        if (typeof body.name !== "string" || !USER_NAME.test(body.name)) throw new KnotError("INVALID_ARGUMENT", "name must be 1–64 letters, digits, '.', '_' or '-'", { where: "name" });
        if (body.isAdmin !== undefined && typeof body.isAdmin !== "boolean") throw new KnotError("INVALID_ARGUMENT", "isAdmin must be true or false", { where: "isAdmin" });
        const user = await store.createUser({ name: body.name, isAdmin: body.isAdmin === true });
        sendJson(ctx.res, 201, { user: { ...user, groups: [], grants: [] } });
      },
    },
    {
      method: "PATCH", path: "/api/users/:id", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const body = await ctx.json();
        if (typeof body.isAdmin !== "boolean") throw new KnotError("INVALID_ARGUMENT", "isAdmin must be true or false", { where: "isAdmin" });
        if (ctx.params.id === ctx.principal.user.id && !body.isAdmin) throw new KnotError("CONFLICT", "you cannot remove your own admin rights; ask another admin");
        await store.setUserAdmin(ctx.params.id!, body.isAdmin);
        sendJson(ctx.res, 200, { user: (await describeUsers()).find((u) => u.id === ctx.params.id) });
      },
    },
    {
      method: "PUT", path: "/api/users/:id/groups", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const body = await ctx.json();
        const wanted = body.groups;
        if (!Array.isArray(wanted) || wanted.some((g) => typeof g !== "string" || !GROUP_NAME.test(g))) {
          throw new KnotError("INVALID_ARGUMENT", "groups must be a list of group names (lower-case letters, digits, _ or -)", { where: "groups" });
        }
        const id = ctx.params.id!;
        if (!(await store.getUser(id))) throw new KnotError("NOT_FOUND", "no such user");
        const current = await store.groupsOf(id);
        for (const group of current) if (!wanted.includes(group)) await store.removeMembership(id, group);
        for (const group of new Set(wanted as string[])) if (!current.includes(group)) await store.addMembership(id, group);
        services.toolsChanged([id]);
        sendJson(ctx.res, 200, { groups: await store.groupsOf(id) });
      },
    },
    { method: "GET", path: "/api/groups", access: "api", admin: true, handle: async (ctx) => sendJson(ctx.res, 200, { groups: await store.listGroups() }) },
    {
      method: "GET", path: "/api/grants", access: "api", admin: true,
      async handle(ctx) {
        const grants = (await store.listGrants()).map((g) => ({
          subject: g.subject.kind === "user" ? `user:${g.subject.userId}` : `group:${g.subject.group}`, permission: g.permission,
        }));
        const permissions = [
          { plugin: null, ids: Object.values(BUILTIN_PERMISSIONS) },
          ...[...registry.loaded.values()].map((p) => ({ plugin: p.name, ids: [...p.manifest.permissions] })),
        ];
        sendJson(ctx.res, 200, { grants, permissions });
      },
    },
    {
      method: "POST", path: "/api/grants", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const body = await ctx.json();
        const grant = { subject: parseSubject(body.subject), permission: parsePermission(body.permission) };
        await store.grant(grant);
        services.toolsChanged(affected(grant.subject));
        await services.events.emit(grantChangedEvent("granted", grant.subject, grant.permission, ctx.principal));
        sendJson(ctx.res, 201, { granted: true });
      },
    },
    {
      method: "DELETE", path: "/api/grants", access: "api", admin: true,
      async handle(ctx) {
        mustWrite(ctx);
        const q = ctx.url.searchParams;
        const subject = parseSubject(q.get("subject"));
        const permission = parsePermission(q.get("permission"));
        const revoked = await store.revoke({ subject, permission });
        if (!revoked) throw new KnotError("NOT_FOUND", "no such grant");
        services.toolsChanged(affected(subject));
        await services.events.emit(grantChangedEvent("revoked", subject, permission, ctx.principal));
        sendJson(ctx.res, 200, { revoked: true });
      },
    },
  ];
}
