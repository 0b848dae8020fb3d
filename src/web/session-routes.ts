/**
 * Why: signing in turns a pasted API token into a web session without ever putting that token
 * in a cookie. The session is a fresh token (`kts_…`, 256 random bits, stored hashed in the
 * tokens table as "web session", expiring) with the same scopes as the token it came from, so
 * a session can never do more than the token that opened it, nor outlive its expiry. Signing out
 * revokes it, and so does revoking the token that opened it (parent_id).
 */
import { SESSION_SECRET_PREFIX } from "../auth/authenticate.ts";
import { hashSecret, mintSecret } from "../auth/secrets.ts";
import { SESSION_TOKEN_NAME } from "../admin/tokens.ts";
import { KnotError } from "../errors.ts";
import { sendJson } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { toUserData } from "../identity/principal.ts";
import type { Services } from "../services.ts";
import { assertCsrfProof } from "../auth/csrf.ts";
import { requestIsSecure, SESSION_TTL_MS, sessionCookieHeader, sessionFromCookies } from "../auth/session-cookie.ts";

export function sessionRoutes(services: Services): Route[] {
  return [
    {
      // Public: the body's token is the credential. The CSRF header is required here too, so a
      // cross-site form cannot sign a browser into someone else's account (login CSRF).
      method: "POST", path: "/api/session", access: "public",
      async handle(ctx) {
        assertCsrfProof(ctx.req.headers, services.config.oauth.publicUrl);
        const body = await ctx.json();
        const presented = typeof body.token === "string" ? body.token.trim() : "";
        if (presented === "") throw new KnotError("INVALID_ARGUMENT", "paste an API token to sign in", { where: "token" });
        const principal = await services.auth.authenticate({ bearer: presented, remoteAddress: ctx.req.socket.remoteAddress, route: "api" });
        if (!principal) throw new KnotError("UNAUTHENTICATED", "that token is not valid (unknown, expired or revoked)");
        const secret = mintSecret(SESSION_SECRET_PREFIX);
        // Never outlive the token that opened it: the session ends at the earlier of the two expiries.
        const parent = principal.tokenId ? await services.store.getToken(principal.tokenId) : null;
        const ttlEnd = new Date(Date.now() + SESSION_TTL_MS).toISOString();
        const capped = parent?.expiresAt != null && parent.expiresAt < ttlEnd;
        const expiresAt = capped ? parent.expiresAt! : ttlEnd;
        const maxAgeSeconds = capped ? Math.max(1, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000)) : undefined;
        const session = await services.store.createToken({
          userId: principal.user.id, name: SESSION_TOKEN_NAME, secretHash: hashSecret(secret), scopes: principal.scopes, expiresAt,
          // Revoking the token that opened the session revokes the session too.
          parentId: principal.tokenId,
        });
        const me = { ...toUserData(principal), tokenId: session.id, scopes: session.scopes, via: "session" };
        sendJson(ctx.res, 200, { user: me, expiresAt }, { "set-cookie": sessionCookieHeader(secret, { secure: requestIsSecure(ctx.req), ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }) }) });
      },
    },
    {
      // Public so that an expired session can still clear its cookie.
      method: "DELETE", path: "/api/session", access: "public",
      async handle(ctx) {
        const secret = sessionFromCookies(ctx.req.headers.cookie, requestIsSecure(ctx.req));
        if (secret) {
          assertCsrfProof(ctx.req.headers, services.config.oauth.publicUrl);
          if (secret.startsWith(SESSION_SECRET_PREFIX)) {
            const token = await services.store.findTokenByHash(hashSecret(secret));
            if (token && token.name === SESSION_TOKEN_NAME) await services.store.revokeToken(token.id);
          }
        }
        sendJson(ctx.res, 200, { signedOut: true }, { "set-cookie": sessionCookieHeader(null, { secure: requestIsSecure(ctx.req) }) });
      },
    },
  ];
}
