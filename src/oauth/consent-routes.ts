/**
 * The consent step, served under the interaction's own path (`/oauth/interaction/:uid`, where
 * oidc-provider's interaction cookie is scoped, so only the browser that started the
 * authorization can act on it). Threats: a forged approval (CSRF — session POSTs need the CSRF
 * header, see src/auth/csrf.ts), approving someone else's interaction (the cookie must
 * name this uid), lending more than the person holds (parseConsent), and a scoped credential
 * minting itself a broader connection (refused, as for token creation).
 */
import { connectionTokenName } from "../admin/tokens.ts";
import { hashSecret, mintSecret } from "../auth/secrets.ts";
import { KnotError } from "../errors.ts";
import { sendJson } from "../http/respond.ts";
import type { HttpContext, Route } from "../http/router.ts";
import { mayWrite } from "../identity/principal.ts";
import type { Services } from "../services.ts";
import { staticRoutes } from "../web/static-routes.ts";
import { consentAreas, EXPIRY_CHOICES_DAYS, parseConsent } from "./consent.ts";
import type { OAuthService } from "./oauth-service.ts";
import { MCP_SCOPE } from "./provider.ts";

const OFFERED_SCOPES = [MCP_SCOPE, "offline_access"];
const NO_EXPIRY_GRANT_S = 10 * 365 * 86_400;

async function interactionOf(ctx: HttpContext, oauth: OAuthService) {
  const provider = await oauth.provider();
  const details = await provider.interactionDetails(ctx.req, ctx.res).catch(() => null);
  if (!details || details.uid !== ctx.params.uid) {
    throw new KnotError("NOT_FOUND", "this authorization request is unknown or has expired: start connecting again from your assistant");
  }
  const clientId = String(details.params.client_id);
  const client = await provider.Client.find(clientId);
  if (!client) throw new KnotError("NOT_FOUND", "the client of this authorization request is no longer registered");
  return { provider, details, client, clientName: client.clientName ?? clientId };
}

function assertMayConsent(ctx: HttpContext): void {
  if (ctx.principal.scopes !== null) throw new KnotError("PERMISSION_DENIED", "permission denied: sign in with an unscoped token to approve a connection");
  if (!mayWrite(ctx.principal)) throw new KnotError("PERMISSION_DENIED", "permission denied: this credential may not change things");
}

export function consentRoutes(services: Services, oauth: OAuthService): Route[] {
  const { store, audit } = services;
  const page = staticRoutes().find((route) => route.path === "/")!;
  return [
    // The page itself is the web editor (it routes on the path); sign-in happens there first.
    { method: "GET", path: "/oauth/interaction/:uid", access: "public", handle: page.handle },
    {
      method: "GET", path: "/oauth/interaction/:uid/details", access: "api",
      async handle(ctx) {
        const { details, client, clientName } = await interactionOf(ctx, oauth);
        const redirect = URL.parse(String(details.params.redirect_uri ?? ""));
        sendJson(ctx.res, 200, {
          client: {
            id: client.clientId, name: clientName,
            // A Client ID Metadata Document's host is verified by the fetch; a registered name is not.
            verifiedHost: /^https:\/\//.test(client.clientId) ? new URL(client.clientId).host : null,
            redirectHost: redirect?.host ?? null,
          },
          user: { name: ctx.principal.user.name },
          mayConsent: ctx.principal.scopes === null && mayWrite(ctx.principal),
          areas: consentAreas(ctx.principal, services.pool.registry),
          expiryChoicesDays: EXPIRY_CHOICES_DAYS,
        });
      },
    },
    {
      method: "POST", path: "/oauth/interaction/:uid/approve", access: "api",
      async handle(ctx) {
        assertMayConsent(ctx);
        const { provider, details, client, clientName } = await interactionOf(ctx, oauth);
        const choice = parseConsent(await ctx.json(), consentAreas(ctx.principal, services.pool.registry));
        // The grant lives as long as the connection: refresh tokens cannot outlive it.
        const expiresIn = choice.expiresInDays === null ? NO_EXPIRY_GRANT_S : choice.expiresInDays * 86_400;
        const grant = new provider.Grant({ accountId: ctx.principal.user.id, clientId: client.clientId, expiresIn } as ConstructorParameters<typeof provider.Grant>[0]);
        // What the client asked for, within what this server offers (other resources were already refused).
        const oidcScopes = String(details.params.scope ?? "").split(" ").filter((s) => OFFERED_SCOPES.includes(s));
        if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(" "));
        grant.addResourceScope(oauth.resource, MCP_SCOPE);
        const grantId = await grant.save();
        const connection = await store.createToken({
          userId: ctx.principal.user.id, name: connectionTokenName(clientName),
          // The connection's own secret is never shown: it is reached only through its OAuth tokens.
          secretHash: hashSecret(mintSecret("ktc_")),
          scopes: choice.scopes,
          expiresAt: choice.expiresInDays === null ? null : new Date(Date.now() + choice.expiresInDays * 86_400_000).toISOString(),
          connection: { clientId: client.clientId, clientName, grantId },
        });
        let redirectTo: string;
        try {
          redirectTo = await provider.interactionResult(ctx.req, ctx.res, { login: { accountId: ctx.principal.user.id }, consent: { grantId } }, { mergeWithLastSubmission: false });
        } catch (error) {
          // The interaction ended meanwhile: leave nothing issued behind.
          await store.revokeToken(connection.id);
          await store.revokeOAuthGrant(grantId);
          throw error;
        }
        await audit.record({
          principal: ctx.principal, surface: "http", tool: "oauth.approve", outcome: "ok", durationMs: 0, requestId: ctx.requestId, client: clientName,
          args: { clientId: client.clientId, connectionId: connection.id, scopes: choice.scopes.permissions, write: choice.scopes.write, expiresInDays: choice.expiresInDays },
        });
        sendJson(ctx.res, 200, { redirectTo, connectionId: connection.id });
      },
    },
    {
      method: "POST", path: "/oauth/interaction/:uid/deny", access: "api",
      async handle(ctx) {
        const { provider, client, clientName } = await interactionOf(ctx, oauth);
        const redirectTo = await provider.interactionResult(ctx.req, ctx.res, { error: "access_denied", error_description: "the person refused the connection" }, { mergeWithLastSubmission: false });
        await audit.record({
          principal: ctx.principal, surface: "http", tool: "oauth.deny", outcome: "REFUSED", durationMs: 0, requestId: ctx.requestId, client: clientName,
          args: { clientId: client.clientId },
        });
        sendJson(ctx.res, 200, { redirectTo });
      },
    },
  ];
}
