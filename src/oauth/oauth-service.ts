/**
 * The OAuth side of the product, put together: the authorization server (oidc-provider, built on
 * first use because the issuer is known only once the server listens), the protected-resource
 * metadata, access-token → connection lookup for /mcp, and connection revocation.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type Provider from "oidc-provider";
import type { ServerConfig } from "../config.ts";
import { sendJson } from "../http/respond.ts";
import type { Logger } from "../log.ts";
import type { Store, TokenRecord } from "../store/store.ts";
import { createOAuthProvider, MCP_SCOPE } from "./provider.ts";
import { PROTECTED_RESOURCE_METADATA_PATH } from "./urls.ts";
import { mcpChallenge } from "./www-authenticate.ts";

/** What happened, for the audit log (wired by the composition root). */
export interface OAuthEvent {
  readonly tool: "oauth.refresh" | "oauth.replay_revoked" | "oauth.token_revoked";
  readonly connection: TokenRecord;
  readonly outcome: string;
}

export interface OAuthService {
  /** The public origin, once known (config.oauth.publicUrl or the bound address). */
  setOrigin(origin: string): void;
  readonly resource: string;
  challenge(tokenPresented: boolean): string;
  provider(): Promise<Provider>;
  /** The live connection an access token was issued for, or null (unknown, expired, wrong audience, revoked). */
  connectionFor(accessToken: string): Promise<TokenRecord | null>;
  /**
   * Serves the well-known documents and /oauth/* (except the consent page's own routes): true or
   * a promise of true when it took the request, false at once when the path is not its own (every
   * other request, so they do not wait a turn of the event loop for the answer).
   */
  handleHttp(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean>;
  /**
   * Called after a token was revoked: for a connection, kills its grant (every code, access and
   * refresh token it issued); for any token, closes the MCP sessions it opened.
   */
  tokenRevoked(token: TokenRecord): Promise<void>;
}

export interface OAuthServiceOptions {
  readonly store: Store;
  readonly config: ServerConfig;
  readonly logger: Logger;
  readonly onEvent: (event: OAuthEvent) => void;
  readonly closeSessions: (tokenId: string) => void;
}

const PROVIDER_PATHS = /^\/(oauth\/(?!interaction\/)|\.well-known\/(oauth-authorization-server|openid-configuration)$)/;

export function createOAuthService(options: OAuthServiceOptions): OAuthService {
  const { store, config } = options;
  let origin = config.oauth.publicUrl;
  let built: Promise<Provider> | null = null;
  const requireOrigin = () => {
    if (origin === null) throw new Error("the OAuth issuer is not known before the server listens");
    return origin;
  };
  const resource = () => `${requireOrigin()}/mcp`;
  const metadataUrl = () => `${requireOrigin()}${PROTECTED_RESOURCE_METADATA_PATH}/mcp`;

  const provider = () => built ??= createOAuthProvider({
    store, issuer: requireOrigin(), resource: resource(), loopbackClientDocuments: config.oauth.loopbackClientDocuments,
  }).then((p) => observe(p, store, options));

  let koaHandler: Promise<ReturnType<Provider["callback"]>> | null = null;
  const callback = () => koaHandler ??= provider().then((p) => p.callback());

  const connectionFor = async (accessToken: string): Promise<TokenRecord | null> => {
    const p = await provider();
    const token = await p.AccessToken.find(accessToken);
    if (!token || token.isExpired || !token.grantId) return null;
    // RFC 8707: a token issued for another resource is refused here.
    if (token.aud !== resource()) return null;
    const connection = await store.findTokenByGrant(token.grantId);
    return connection?.connection?.clientId === token.clientId ? connection : null;
  };

  const protectedResourceMetadata = () => ({
    resource: resource(),
    authorization_servers: [requireOrigin()],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: "knot-tools",
  });

  /** oidc-provider's own routes: answered once its response has gone out. */
  async function serveProvider(req: IncomingMessage, res: ServerResponse): Promise<true> {
    const handler = await callback();
    await new Promise<void>((resolve) => {
      res.once("close", resolve);
      res.once("finish", resolve);
      void handler(req, res);
    });
    return true;
  }

  return {
    setOrigin(value) {
      origin ??= value;
    },
    get resource() {
      return resource();
    },
    challenge: (tokenPresented) => mcpChallenge(metadataUrl(), tokenPresented),
    provider,
    connectionFor,
    handleHttp(req, res) {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      if (path === PROTECTED_RESOURCE_METADATA_PATH || path === `${PROTECTED_RESOURCE_METADATA_PATH}/mcp`) {
        const cors = { "access-control-allow-origin": "*", "access-control-allow-methods": "GET, OPTIONS", "access-control-allow-headers": "mcp-protocol-version" };
        if (req.method === "OPTIONS") sendJson(res, 204, null, cors);
        else if (req.method === "GET" || req.method === "HEAD") sendJson(res, 200, protectedResourceMetadata(), cors);
        else sendJson(res, 405, { error: "method not allowed", code: "METHOD_NOT_ALLOWED" }, { allow: "GET, OPTIONS" });
        return true;
      }
      if (!PROVIDER_PATHS.test(path)) return false;
      return serveProvider(req, res);
    },
    async tokenRevoked(token) {
      if (token.connection) await store.revokeOAuthGrant(token.connection.grantId);
      options.closeSessions(token.id);
    },
  };
}

/** Audits refreshes and replay-triggered revocations; a replay also revokes the connection. */
function observe(provider: Provider, store: Store, options: OAuthServiceOptions): Provider {
  const withConnection = (grantId: string | undefined, act: (connection: TokenRecord) => Promise<void> | void) => {
    if (!grantId) return;
    void store.findTokenByGrant(grantId)
      .then((connection) => (connection ? act(connection) : undefined))
      .catch((error: unknown) => options.logger.error("oauth event handling failed", { error }));
  };
  provider.on("grant.success", (ctx) => {
    if (ctx.oidc.params?.grant_type !== "refresh_token") return;
    withConnection(ctx.oidc.entities.RefreshToken?.grantId, (connection) => options.onEvent({ tool: "oauth.refresh", connection, outcome: "ok" }));
  });
  provider.on("grant.revoked", (ctx, grantId: string) => {
    const tool = ctx.oidc.route === "revocation" ? "oauth.token_revoked" : "oauth.replay_revoked";
    withConnection(grantId, async (connection) => {
      await store.revokeToken(connection.id);
      options.closeSessions(connection.id);
      options.onEvent({ tool, connection, outcome: tool === "oauth.replay_revoked" ? "REPLAY_DETECTED" : "ok" });
    });
  });
  provider.on("server_error", (_ctx, error) => options.logger.error("oauth server error", { error }));
  return provider;
}
