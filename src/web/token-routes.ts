/**
 * Why: API tokens are credentials. A new token's secret is shown once and only its hash is
 * stored; a token can only be created by an unscoped credential (a scoped one could otherwise
 * mint itself a broader token), for oneself unless the caller is an admin; and a token can be
 * listed and revoked only by its owner or an admin. A scoped credential (an assistant's narrowed
 * token) sees and revokes only itself: it must neither learn about the user's other credentials
 * nor revoke them (the user could not mint a new token without an unscoped one).
 */
import { adminOf } from "../admin/admin.ts";
import { MAX_TOKEN_LIFETIME_DAYS, SESSION_TOKEN_NAME, tokenScopes } from "../admin/tokens.ts";
import { tokenState } from "../auth/authenticate.ts";
import { KnotError } from "../errors.ts";
import { sendJson } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { effectiveIsAdmin, mayWrite, type Principal } from "../identity/principal.ts";
import type { Services } from "../services.ts";
import type { TokenRecord, TokenScopes } from "../store/store.ts";


/** A token as the UI shows it: never its secret or hash. */
export function describeToken(token: TokenRecord, principal: Principal, now = new Date().toISOString()) {
  return { ...token, state: tokenState(token, now), session: token.name === SESSION_TOKEN_NAME, current: token.id === principal.tokenId };
}

/** What a new token's request may say. A key outside it is refused: a misspelt expiry would otherwise give a token that never expires. */
const NEW_TOKEN_KEYS = ["name", "expiresInDays", "scopes", "write", "userId"];

/** The web form of a new token (its name is checked by the admin layer). */
function parseNewToken(body: Record<string, unknown>): { name: unknown; scopes: TokenScopes | null; expiresAt: string | null } {
  const unknown = Object.keys(body).find((key) => !NEW_TOKEN_KEYS.includes(key));
  if (unknown !== undefined) {
    throw new KnotError("INVALID_ARGUMENT", `${JSON.stringify(unknown)} is not a key of a new token (expected: ${NEW_TOKEN_KEYS.join(", ")})`, { where: unknown });
  }
  const name = body.name;
  let expiresAt: string | null = null;
  if (body.expiresInDays !== undefined && body.expiresInDays !== null) {
    const days = body.expiresInDays;
    if (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > MAX_TOKEN_LIFETIME_DAYS) {
      throw new KnotError("INVALID_ARGUMENT", `expiresInDays must be a whole number of days from 1 to ${MAX_TOKEN_LIFETIME_DAYS}, or null for no expiry`, { where: "expiresInDays" });
    }
    expiresAt = new Date(Date.now() + days * 86_400_000).toISOString();
  }
  const listed = body.scopes ?? null;
  if (listed !== null && (!Array.isArray(listed) || listed.some((s) => typeof s !== "string"))) {
    throw new KnotError("INVALID_ARGUMENT", "scopes must be a list of permission ids or globs, or null for the full authority", { where: "scopes" });
  }
  // Checked with or without scopes: `write: "false"` must not fall through to a read-write token.
  if (body.write !== undefined && typeof body.write !== "boolean") throw new KnotError("INVALID_ARGUMENT", "write must be true or false", { where: "write" });
  return { name, scopes: tokenScopes(listed as string[] | null, body.write !== false), expiresAt };
}

export function tokenRoutes(services: Services): Route[] {
  const { store } = services;
  const admin = adminOf(services);
  return [
    {
      method: "GET", path: "/api/tokens", access: "api",
      async handle(ctx) {
        const all = ctx.url.searchParams.get("all") === "1";
        if (all && !effectiveIsAdmin(ctx.principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: only admins list every user's tokens");
        const own = await store.listTokens(all ? undefined : ctx.principal.user.id);
        const tokens = ctx.principal.scopes === null ? own : own.filter((t) => t.id === ctx.principal.tokenId);
        const names = all ? new Map((await store.listUsers()).map((u) => [u.id, u.name])) : null;
        sendJson(ctx.res, 200, {
          tokens: tokens.map((t) => ({ ...describeToken(t, ctx.principal), ...(names ? { userName: names.get(t.userId) ?? null } : {}) })),
        });
      },
    },
    {
      method: "POST", path: "/api/tokens", access: "api",
      async handle(ctx) {
        const principal = ctx.principal;
        if (principal.scopes !== null) throw new KnotError("PERMISSION_DENIED", "permission denied: a scoped credential cannot create tokens; sign in with an unscoped token");
        if (!mayWrite(principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: this credential may not change things");
        const body = await ctx.json();
        let userId = principal.user.id;
        if (body.userId !== undefined && body.userId !== principal.user.id) {
          if (!effectiveIsAdmin(principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: only admins create tokens for other users");
          if (typeof body.userId !== "string" || !(await store.getUser(body.userId))) throw new KnotError("NOT_FOUND", "no such user", { where: "userId" });
          userId = body.userId;
        }
        const { token, secret } = await admin.tokens.create({ userId, ...parseNewToken(body) });
        sendJson(ctx.res, 201, { token: describeToken(token, principal), secret });
      },
    },
    {
      method: "PATCH", path: "/api/tokens/:id", access: "api",
      async handle(ctx) {
        const token = await store.getToken(ctx.params.id!);
        if (!token || (token.userId !== ctx.principal.user.id && !effectiveIsAdmin(ctx.principal))) throw new KnotError("NOT_FOUND", "no such token");
        if (ctx.principal.scopes !== null || !mayWrite(ctx.principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: sign in with an unscoped token to rename tokens");
        const body = await ctx.json();
        await admin.tokens.rename(token, body.name);
        sendJson(ctx.res, 200, { token: describeToken((await store.getToken(token.id))!, ctx.principal) });
      },
    },
    {
      method: "DELETE", path: "/api/tokens/:id", access: "api",
      async handle(ctx) {
        const token = await store.getToken(ctx.params.id!);
        const mine = token?.userId === ctx.principal.user.id;
        if (!token || (!mine && !effectiveIsAdmin(ctx.principal))) throw new KnotError("NOT_FOUND", "no such token");
        if (!mayWrite(ctx.principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: this credential may not change things");
        if (ctx.principal.scopes !== null && token.id !== ctx.principal.tokenId) {
          throw new KnotError("PERMISSION_DENIED", "permission denied: a scoped credential may revoke only itself; sign in with an unscoped token to revoke others");
        }
        const revoked = await admin.tokens.revoke(token, { principal: ctx.principal, surface: "http", requestId: ctx.requestId });
        sendJson(ctx.res, 200, { revoked, token: describeToken((await store.getToken(token.id)) ?? token, ctx.principal) });
      },
    },
  ];
}
