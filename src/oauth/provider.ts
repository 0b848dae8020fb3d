/**
 * The authorization server: panva's oidc-provider (OpenID certified), configured for MCP's
 * authorization spec. It does all the protocol work — codes, PKCE, token issue and rotation,
 * refresh-token replay detection, revocation, Dynamic Client Registration and Client ID Metadata
 * Documents; we configure it, persist its models in our Store and supply the consent step.
 *
 * Choices, each a promise in docs/security-services.md §4.19: PKCE (S256) for every client; tokens only for
 * this server's `/mcp` (RFC 8707; any other `resource` is `invalid_target`); codes live 60 s and
 * are single-use (a replayed code revokes what it issued); refresh tokens rotate on every use and
 * a replayed one revokes its whole grant; consent is asked every time (no silent re-approval).
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import type { Store } from "../store/store.ts";
import { createClientDocumentFetch } from "./client-documents.ts";
import { createStoreAdapter } from "./store-adapter.ts";
import { OAUTH_PATHS } from "./urls.ts";

export const MCP_SCOPE = "mcp";

export interface ProviderOptions {
  readonly store: Store;
  /** The public origin (issuer), e.g. https://knot.example.com. */
  readonly issuer: string;
  /** This server's MCP endpoint: the only resource tokens are issued for. */
  readonly resource: string;
  /** Tests only: fetch Client ID Metadata Documents from http://127.0.0.1 too. */
  readonly loopbackClientDocuments: boolean;
}

const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 86_400;

export async function createOAuthProvider(options: ProviderOptions): Promise<Provider> {
  const { store, resource } = options;
  const cookieKey = await store.getOrCreateSetting("oauth.cookie_key", () => randomBytes(32).toString("base64url"));
  const signingKey = await store.getOrCreateSetting("oauth.signing_jwk", () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    return JSON.stringify({ ...privateKey.export({ format: "jwk" }), kid: randomBytes(8).toString("hex"), use: "sig", alg: "RS256" });
  });
  const configuration: Configuration = {
    adapter: (model: string) => createStoreAdapter(store, model),
    clients: [],
    cookies: { keys: [cookieKey] },
    jwks: { keys: [JSON.parse(signingKey) as Record<string, string>] },
    findAccount: async (_ctx, sub) => ((await store.getUser(sub)) ? { accountId: sub, claims: () => ({ sub }) } : undefined),
    scopes: [MCP_SCOPE, "offline_access"],
    claims: { openid: ["sub"] },
    responseTypes: ["code"],
    pkce: { required: () => true },
    // Listing a standard property here makes oidc-provider call the validator on it too.
    extraClientMetadata: { properties: ["redirect_uris"], validator: checkRedirectUris },
    allowOmittingSingleRegisteredRedirectUri: false,
    routes: OAUTH_PATHS,
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    // Consent every time: a browser that approved before gets asked again, never a silent grant.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 600,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      // The grant's own lifetime is the connection's expiry, set when it is saved (consent.ts).
      Grant: REFRESH_TOKEN_TTL_S,
    },
    // Token, registration and revocation are called from browsers by hosted clients; they take
    // no cookies, so any origin may call them.
    clientBasedCORS: () => true,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`tokens are issued only for ${resource}`);
          return { scope: MCP_SCOPE, audience: resource, accessTokenFormat: "opaque", accessTokenTTL: ACCESS_TOKEN_TTL_S };
        },
      },
      clientIdMetadataDocument: { enabled: true, ack: "draft-02" },
    },
    ...(options.loopbackClientDocuments ? { fetch: createClientDocumentFetch() } : {}),
    renderError: (ctx, out) => {
      ctx.type = "html";
      ctx.body = `<!doctype html><meta charset="utf-8"><title>Authorization failed</title><h1>Authorization failed</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ""))}</p>`;
    },
  };
  const provider = new Provider(options.issuer, configuration);
  // RFC 6749 §3.3: a request without `scope` gets the default one. Without this, oidc-provider
  // would answer access_denied, as nothing was asked for.
  provider.use(async (ctx, next) => {
    if (ctx.method === "GET" && ctx.path === OAUTH_PATHS.authorization && !ctx.query.scope) {
      const query = new URLSearchParams(ctx.querystring);
      query.set("scope", MCP_SCOPE);
      ctx.querystring = query.toString();
    }
    await next();
  });
  // Behind a TLS-terminating proxy the issuer is https while the socket is not; only then are
  // X-Forwarded-* headers trusted.
  provider.proxy = options.issuer.startsWith("https:");
  return provider;
}

/** Hosts a plain http:// redirect URI may name: the client's own machine (RFC 8252 §7.3). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * OAuth 2.1 §2.3.1 (RFC 9700 §2.1): a redirect URI is https, or http to the client's own machine.
 * A plain http:// one elsewhere would carry authorization codes over the network in the clear.
 * Values of another shape are left to oidc-provider's own checks, which follow.
 */
function checkRedirectUris(_ctx: unknown, key: string, value: unknown): void {
  if (key !== "redirect_uris" || !Array.isArray(value)) return;
  for (const uri of value) {
    const parsed = typeof uri === "string" ? URL.parse(uri) : null;
    if (parsed?.protocol === "http:" && !LOOPBACK_HOSTS.has(parsed.hostname)) {
      throw new errors.InvalidClientMetadata(`redirect_uris must use https, or http only to a loopback host (127.0.0.1, [::1], localhost): ${uri}`);
    }
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
