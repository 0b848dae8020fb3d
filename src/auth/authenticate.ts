/**
 * Turns a presented credential into a Principal, or null. API tokens are looked up by the hash of
 * the secret (only hashes are stored); expired and revoked ones are refused. Loopback tokens are
 * accepted only from a loopback address and only on the routes a user tool's guest libraries need
 * (`/plugins/…` and read-only `/api` routes), never on management endpoints. Web-session secrets
 * (`kts_…`, minted by src/web at sign-in and stored hashed like any token) are accepted only as
 * the session cookie, never as a bearer, and never on /mcp.
 */
import { deepFreeze } from "../deep-freeze.ts";
import type { Principal } from "../identity/principal.ts";
import type { Store, TokenRecord } from "../store/store.ts";
import { LOOPBACK_TOKEN_PREFIX, type LoopbackTokens } from "./loopback-tokens.ts";
import { createMarkCache } from "../store/mark-cache.ts";
import { hashSecret } from "./secrets.ts";

/** Prefix of web-session secrets: they travel only in the HttpOnly session cookie. */
export const SESSION_SECRET_PREFIX = "kts_";

export type RouteClass = "plugin" | "api-read" | "api" | "mcp";

/** Whether a route class takes the web-session cookie at all (never /mcp: bearer tokens only). */
export function acceptsSession(route: RouteClass): boolean {
  return route !== "mcp";
}

export interface Credential {
  readonly bearer: string | null;
  /** The session cookie's value, used only when no bearer was presented. */
  readonly session?: string | null;
  readonly remoteAddress: string | undefined;
  readonly route: RouteClass;
}

export interface Authenticator {
  authenticate(credential: Credential): Promise<Principal | null>;
  /** The principal of a stored user, as the local CLI acts for it (no token involved). */
  principalFor(userId: string, via?: Principal["via"]): Promise<Principal | null>;
  /** The principal a stored token lends, or null when it is revoked or expired (checked like any request). */
  principalForToken(token: TokenRecord): Promise<Principal | null>;
  /** The same credential's principal read again now (grants, groups, scopes, revocation), or null when it is gone. */
  refresh(principal: Principal): Promise<Principal | null>;
}

/** Whether a stored token may be used now: the one check every credential path applies. */
export function tokenState(token: TokenRecord, now = new Date().toISOString()): "active" | "revoked" | "expired" {
  if (token.revokedAt !== null) return "revoked";
  if (token.expiresAt !== null && token.expiresAt <= now) return "expired";
  return "active";
}

const TOUCH_INTERVAL_MS = 60_000;

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

/** Finds the live OAuth connection an access token belongs to (src/oauth); only /mcp accepts them. */
export interface ConnectionLookup {
  connectionFor(accessToken: string): Promise<TokenRecord | null>;
}

const MAX_CACHED_TOKENS = 1024;

export function createAuthenticator(store: Store, loopback: LoopbackTokens, connections?: ConnectionLookup): Authenticator {
  const principalFor = async (userId: string, via: Principal["via"] = "cli"): Promise<Principal | null> => {
    const user = await store.getUser(userId);
    if (!user) return null;
    const [groups, granted] = await Promise.all([store.groupsOf(userId), store.permissionsOf(userId)]);
    return { user, groups, granted, scopes: null, tokenId: null, via };
  };
  const principalForToken = async (token: TokenRecord): Promise<Principal | null> => {
    if (tokenState(token) !== "active") return null;
    const base = await principalFor(token.userId, "token");
    return base && { ...base, scopes: token.scopes, tokenId: token.id, ...(token.connection ? { clientName: token.connection.clientName } : {}) };
  };
  // Token principals by secret hash: a revocation, grant or group change here or in another process moves the mark.
  const cached = createMarkCache<{ token: TokenRecord; principal: Principal }>(store.changeMark?.bind(store), MAX_CACHED_TOKENS);
  const storedTokenPrincipal = async (secret: string): Promise<Principal | null> => {
    const hash = hashSecret(secret);
    const entry = await cached(hash, async () => {
      const token = await store.findTokenByHash(hash);
      const principal = token && (await principalForToken(token));
      // One object serves every request of the token until the mark moves: nobody may change it.
      return token && principal ? deepFreeze({ token, principal }) : null;
    });
    return entry && livePrincipal(entry.token, entry.principal);
  };
  /**
   * When this process last recorded each token's use: a cached record keeps the lastUsedAt it was
   * read with (recording a use does not move the change mark), so it cannot say by itself.
   */
  const touched = new Map<string, number>();
  /** last_used_at is informational: refreshed at most once a minute per token, not on every request. */
  const recordUse = (token: TokenRecord, now: string): void => {
    const nowMs = Date.parse(now);
    const last = Math.max(touched.get(token.id) ?? 0, token.lastUsedAt === null ? 0 : Date.parse(token.lastUsedAt));
    if (nowMs - last <= TOUCH_INTERVAL_MS) return;
    if (touched.size >= MAX_CACHED_TOKENS) {
      // Entries older than the interval hold nothing back any more; the rest only if still full.
      for (const [id, at] of touched) if (nowMs - at > TOUCH_INTERVAL_MS) touched.delete(id);
      if (touched.size >= MAX_CACHED_TOKENS) touched.clear();
    }
    touched.set(token.id, nowMs);
    void store.touchToken(token.id, now).catch(() => {});
  };
  /** The token's principal if the token may be used now (expiry is checked on every request, cached or not). */
  const livePrincipal = async (token: TokenRecord, known?: Principal): Promise<Principal | null> => {
    const now = new Date().toISOString();
    if (tokenState(token, now) !== "active") return null;
    const principal = known ?? (await principalForToken(token));
    if (principal) recordUse(token, now);
    return principal;
  };
  return {
    principalFor,
    principalForToken,
    async refresh(principal) {
      if (principal.tokenId === null) return principalFor(principal.user.id, principal.via);
      const token = await store.getToken(principal.tokenId);
      const fresh = token && (await principalForToken(token));
      return fresh && { ...fresh, via: principal.via };
    },
    async authenticate({ bearer, session, remoteAddress, route }) {
      if (!bearer) {
        if (!session || !session.startsWith(SESSION_SECRET_PREFIX) || !acceptsSession(route)) return null;
        const principal = await storedTokenPrincipal(session);
        return principal && { ...principal, via: "session" };
      }
      if (bearer.startsWith(SESSION_SECRET_PREFIX)) return null;
      if (bearer.startsWith(LOOPBACK_TOKEN_PREFIX)) {
        // A run's token (never a stored one): only from this machine, only where guest libraries call.
        const allowed = (route === "plugin" || route === "api-read") && isLoopbackAddress(remoteAddress);
        return allowed ? loopback.principalOf(bearer) : null;
      }
      const stored = await storedTokenPrincipal(bearer);
      if (stored || route !== "mcp" || !connections) return stored;
      // An OAuth access token: valid only on /mcp, only while its connection is live.
      const connection = await connections.connectionFor(bearer);
      return connection ? livePrincipal(connection) : null;
    },
  };
}

/** `Authorization: Bearer <token>` → the token, or null. */
export function bearerFrom(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
