/**
 * A hosted assistant, as the tests play it: the real MCP SDK client's OAuth (discovery from the
 * 401, registration, PKCE, `resource`), and a cookie-keeping "browser" made of fetch calls that
 * signs in with a token and answers the consent page through its own routes. The Playwright test
 * (test/browser/oauth-consent.test.ts) does the browser part in a real Chromium instead.
 */
import { createHash, randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

export const REDIRECT_URI = "http://127.0.0.1:9/callback";

/** The client's side of OAuth, kept in memory; `authorizationUrl` is where it sent the person. */
export class TestOAuthClient implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | null = null;
  clientMetadataUrl?: string;
  readonly #name: string;
  readonly #redirect: string;

  constructor(name = "Test Assistant", options: { clientMetadataUrl?: string; redirectUri?: string } = {}) {
    this.#name = name;
    this.#redirect = options.redirectUri ?? REDIRECT_URI;
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
  }
  get redirectUrl() {
    return this.#redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.#name, redirect_uris: [this.#redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state() {
    return "st-" + Math.random().toString(36).slice(2);
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A minimal cookie jar (names are unique across the paths these flows use). */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly origin: string;
  constructor(origin: string) {
    this.origin = origin;
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(new URL(url, this.origin), { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async signIn(token: string): Promise<void> {
    const res = await this.fetch("/api/session", { method: "POST", headers: { "content-type": "application/json", "x-knot-csrf": "1" }, body: JSON.stringify({ token }) });
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  }

  /** Opens the authorization URL; returns the consent page's path (the interaction). */
  async openAuthorization(url: URL | string): Promise<string> {
    const res = await this.fetch(String(url));
    const location = res.headers.get("location");
    if (res.status !== 303 || !location?.startsWith("/oauth/interaction/")) throw new Error(`expected a redirect to consent, got ${res.status} ${location ?? await res.text()}`);
    return location;
  }

  async consent(interaction: string, action: "approve" | "deny", body: unknown = {}, headers: Record<string, string> = { "x-knot-csrf": "1" }) {
    const res = await this.fetch(`${interaction}/${action}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() as Record<string, any> };
  }

  /** Follows redirects on this origin until one leaves it (the client's redirect_uri). */
  async followToClient(url: string): Promise<URL> {
    let next = url;
    for (let hops = 0; hops < 5; hops++) {
      const target = new URL(next, this.origin);
      if (target.origin !== this.origin) return target;
      const res = await this.fetch(target.href);
      const location = res.headers.get("location");
      if (!location) throw new Error(`no redirect from ${target.pathname}: ${res.status} ${await res.text()}`);
      next = location;
    }
    throw new Error("too many redirects");
  }
}

export const FULL_CONSENT = { permissions: [], userTools: true, write: true, expiresInDays: 30 };

/**
 * The whole hosted-client flow against `<url>/mcp`: connect (401 → OAuth), approve as the person
 * holding `personToken` with `consent`, exchange the code, connect again. Returns the connected client.
 */
export async function connectOverOAuth(url: string, personToken: string, consent: unknown = FULL_CONSENT, oauth = new TestOAuthClient()) {
  const first = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth });
  const probe = new Client({ name: "hosted-client", version: "1.0.0" });
  await probe.connect(first).then(() => { throw new Error("connected without authorization"); }, (error: unknown) => {
    if (!(error instanceof UnauthorizedError)) throw error;
  });
  if (!oauth.authorizationUrl) throw new Error("the client was not sent to authorize");
  const browser = new Browser(url);
  await browser.signIn(personToken);
  const interaction = await browser.openAuthorization(oauth.authorizationUrl);
  const approved = await browser.consent(interaction, "approve", consent);
  if (approved.status !== 200) throw new Error(`approval failed: ${JSON.stringify(approved.body)}`);
  const callback = await browser.followToClient(approved.body.redirectTo);
  await first.finishAuth(callback.searchParams.get("code")!);
  const client = new Client({ name: "hosted-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth });
  await client.connect(transport);
  return { client, transport, oauth, browser, callback, connectionId: String(approved.body.connectionId) };
}

/** PKCE by hand, for the tests that send bad verifiers on purpose. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function registerClient(url: string, metadata: Record<string, unknown> = {}): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}/oauth/register`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Raw Client", redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none", ...metadata }),
  });
  return { status: res.status, body: await res.json() as Record<string, any> };
}

export interface AuthorizeParams {
  readonly client_id: string;
  readonly redirect_uri?: string;
  readonly code_challenge?: string;
  readonly state?: string;
  readonly resource?: string;
  readonly scope?: string;
  readonly [extra: string]: string | undefined;
}

export function authorizeUrl(url: string, params: AuthorizeParams): string {
  const query = new URLSearchParams({ response_type: "code", code_challenge_method: "S256", redirect_uri: REDIRECT_URI, resource: `${url}/mcp`, scope: "mcp", state: "s1" });
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return `${url}/oauth/authorize?${query}`;
}

/** Signs in, opens the authorization and approves it; returns the redirect back to the client. */
export async function approve(url: string, personToken: string, params: AuthorizeParams, consent: unknown = FULL_CONSENT) {
  const browser = new Browser(url);
  await browser.signIn(personToken);
  const interaction = await browser.openAuthorization(authorizeUrl(url, params));
  const approved = await browser.consent(interaction, "approve", consent);
  if (approved.status !== 200) throw new Error(`approval failed: ${JSON.stringify(approved.body)}`);
  return { callback: await browser.followToClient(approved.body.redirectTo), connectionId: String(approved.body.connectionId), browser };
}

export async function tokenRequest(url: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${url}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) });
  return { status: res.status, body: await res.json() as Record<string, any> };
}

/** Registration, approval and code exchange in one: fresh tokens for a new connection. */
export async function issueTokens(url: string, personToken: string, consent: unknown = FULL_CONSENT) {
  const client = (await registerClient(url)).body;
  const { verifier, challenge } = pkcePair();
  const { callback, connectionId } = await approve(url, personToken, { client_id: client.client_id, code_challenge: challenge }, consent);
  const tokens = await tokenRequest(url, { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id, resource: `${url}/mcp` });
  if (tokens.status !== 200) throw new Error(`code exchange failed: ${JSON.stringify(tokens.body)}`);
  return { client, tokens: tokens.body, connectionId };
}
