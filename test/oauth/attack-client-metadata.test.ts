/**
 * Client ID Metadata Documents: a client whose id is an https URL is described by the document at
 * that URL. Fetched by oidc-provider with strict limits (https only, 2.5 s, 5 KiB, no redirects,
 * special-use addresses refused); tests serve it from the loopback only because
 * `[oauth] loopback_client_documents = true` is set (never in production).
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { authorizeUrl, Browser, pkcePair, REDIRECT_URI, tokenRequest } from "./helpers.ts";

let app: TestApp;
let strictApp: TestApp;
let person: string;
let documents: http.Server;
let base = "";
const served = new Map<string, { status?: number; body: string; location?: string }>();
const hits: string[] = [];

before(async () => {
  documents = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    const doc = served.get(req.url ?? "");
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(doc.status ?? 200, { "content-type": "application/json", ...(doc.location ? { location: doc.location } : {}) }).end(doc.body);
  });
  await new Promise<void>((resolve) => documents.listen(0, "127.0.0.1", resolve));
  base = `https://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  app = await startApp({ config: { oauth: { publicUrl: null, loopbackClientDocuments: true } } });
  strictApp = await startApp();
  person = (await app.userWithToken("cim", { grants: ["knot.mcp"] })).token;
});
after(async () => {
  documents.close();
  await app.close();
  await strictApp.close();
});

function serve(path: string, document: Record<string, unknown> | string, extra: { status?: number; location?: string } = {}): string {
  served.set(path, { body: typeof document === "string" ? document : JSON.stringify(document), ...extra });
  return `${base}${path}`;
}

test("a client identified by its metadata document URL connects; the consent page shows its verified host", async () => {
  const clientId = serve("/good/client.json", { client_id: `${base}/good/client.json`, client_name: "Documented Assistant", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] });
  const browser = new Browser(app.url);
  await browser.signIn(person);
  const { verifier, challenge } = pkcePair();
  const interaction = await browser.openAuthorization(authorizeUrl(app.url, { client_id: clientId, code_challenge: challenge }));
  const details = await (await browser.fetch(`${interaction}/details`)).json() as { client: { name: string; verifiedHost: string } };
  assert.equal(details.client.name, "Documented Assistant");
  assert.equal(details.client.verifiedHost, new URL(base).host);
  const approved = await browser.consent(interaction, "approve", { permissions: [], userTools: false, write: false, expiresInDays: 1 });
  const callback = await browser.followToClient(approved.body.redirectTo);
  const tokens = await tokenRequest(app.url, { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: clientId });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  assert.ok(tokens.body.access_token);
});

test("bad documents are refused with invalid_client and no redirect: wrong client_id, secrets, oversized, redirects, not found", async () => {
  const cases: [string, string][] = [
    ["mismatch", serve("/mismatch.json", { client_id: `${base}/other.json`, client_name: "X", redirect_uris: [REDIRECT_URI] })],
    ["secret", serve("/secret.json", { client_id: `${base}/secret.json`, client_secret: "s", redirect_uris: [REDIRECT_URI] })],
    ["oversized", serve("/big.json", { client_id: `${base}/big.json`, client_name: "x".repeat(6000), redirect_uris: [REDIRECT_URI] })],
    ["redirected", serve("/moved.json", "", { status: 302, location: `${base}/good/client.json` })],
    ["missing", `${base}/nothing-here.json`],
    ["not json", serve("/html.json", "<html>")],
  ];
  for (const [why, clientId] of cases) {
    const res = await new Browser(app.url).fetch(authorizeUrl(app.url, { client_id: clientId, code_challenge: pkcePair().challenge }));
    assert.equal(res.status, 400, why);
    assert.equal(res.headers.get("location"), null, `${why}: no redirect`);
  }
  // A document listing another redirect URI does not let the client use ours.
  const narrow = serve("/narrow.json", { client_id: `${base}/narrow.json`, client_name: "N", redirect_uris: ["http://127.0.0.1:1/elsewhere"] });
  const res = await new Browser(app.url).fetch(authorizeUrl(app.url, { client_id: narrow, code_challenge: pkcePair().challenge }));
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("location"), null);
});

test("without the test-only setting, a document on a loopback address is never fetched (SSRF guard)", async () => {
  const clientId = serve("/strict/client.json", { client_id: `${base}/strict/client.json`, client_name: "Loopback", redirect_uris: [REDIRECT_URI] });
  hits.length = 0;
  const res = await new Browser(strictApp.url).fetch(authorizeUrl(strictApp.url, { client_id: clientId, code_challenge: pkcePair().challenge }));
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("location"), null);
  assert.deepEqual(hits, [], "the strict server never reached the loopback");
  const httpId = await new Browser(strictApp.url).fetch(authorizeUrl(strictApp.url, { client_id: clientId.replace("https:", "http:"), code_challenge: pkcePair().challenge }));
  assert.equal(httpId.status, 400, "an http client id is not a metadata document URL");
});
