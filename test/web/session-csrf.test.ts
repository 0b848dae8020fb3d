/** Web sessions: sign-in mints a hashed, expiring session token; the cookie alone never changes anything. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { hashSecret } from "../../src/auth/secrets.ts";
import { DEFAULT_CONFIG } from "../../src/config.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;
let token: string;

before(async () => {
  t = await startApp();
  token = (await t.userWithToken("dora", { grants: ["knot.tools.author"] })).token;
});
after(() => t.close());

async function signIn(presented: string, headers: Record<string, string> = { "x-knot-csrf": "1" }) {
  const res = await fetch(`${t.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ token: presented }) });
  return { res, body: await res.json() as any, cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]! };
}

test("sign-in sets an HttpOnly, SameSite=Strict session cookie holding a new secret, stored only hashed", async () => {
  const { res, body } = await signIn(token);
  assert.equal(res.status, 200);
  const setCookie = res.headers.get("set-cookie") ?? "";
  assert.match(setCookie, /^knot_session=kts_[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  const secret = setCookie.split(";")[0]!.split("=")[1]!;
  assert.notEqual(secret, token, "the pasted token never becomes the cookie");
  const stored = await t.app.store.findTokenByHash(hashSecret(secret));
  assert.equal(stored?.name, "web session");
  assert.ok(stored?.expiresAt && Date.parse(stored.expiresAt) - Date.now() <= 12 * 3600_000);
  assert.equal(body.user.name, "dora");
});

test("sign-in refuses bad tokens, and requires the CSRF header (no login CSRF)", async () => {
  assert.equal((await signIn("kt_nope")).res.status, 401);
  assert.equal((await signIn("")).body.code, "INVALID_ARGUMENT");
  const noHeader = await signIn(token, {});
  assert.equal(noHeader.res.status, 403);
  assert.equal(noHeader.body.code, "PERMISSION_DENIED");
});

test("the cookie reads with GET, but changes need x-knot-csrf and a same-origin Origin", async () => {
  const { cookie } = await signIn(token);
  assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie } })).body.name, "dora");
  const body = JSON.stringify({ name: "csrf-probe", code: "export default () => 1" });
  const forged = await request(`${t.url}/api/tools`, null, { method: "POST", headers: { cookie }, body });
  assert.equal(forged.status, 403);
  assert.equal(forged.body.code, "PERMISSION_DENIED");
  const crossOrigin = await request(`${t.url}/api/tools`, null, { method: "POST", headers: { cookie, "x-knot-csrf": "1", origin: "http://evil.example" }, body });
  assert.equal(crossOrigin.status, 403);
  const crossSite = await request(`${t.url}/api/tools`, null, { method: "POST", headers: { cookie, "x-knot-csrf": "1", "sec-fetch-site": "cross-site" }, body });
  assert.equal(crossSite.status, 403);
  const ok = await request(`${t.url}/api/tools`, null, { method: "POST", headers: { cookie, "x-knot-csrf": "1", origin: t.url }, body });
  assert.equal(ok.status, 201);
  // Plugin handlers may act on GET, so /plugins/ needs the header for every method.
  const pluginGet = await request(`${t.url}/plugins/demo/lib_exports`, null, { headers: { cookie } });
  assert.equal(pluginGet.status, 403);
  assert.equal((await request(`${t.url}/plugins/demo/lib_exports`, null, { headers: { cookie, "x-knot-csrf": "1" } })).status, 200);
});

test("session secrets work only as the cookie, never as a bearer or on /mcp; bearer requests need no CSRF header", async () => {
  const { cookie } = await signIn(token);
  const secret = cookie.split("=")[1]!;
  assert.equal((await request(`${t.url}/api/me`, secret)).status, 401);
  const bearerWrite = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "by-bearer", code: "export default () => 1" }) });
  assert.equal(bearerWrite.status, 201);
  const auth = await t.app.auth.authenticate({ bearer: null, session: secret, remoteAddress: "127.0.0.1", route: "mcp" });
  assert.equal(auth, null);
});

test("sign-out revokes the session and clears the cookie", async () => {
  const { cookie } = await signIn(token);
  const out = await fetch(`${t.url}/api/session`, { method: "DELETE", headers: { cookie, "x-knot-csrf": "1" } });
  assert.equal(out.status, 200);
  assert.match(out.headers.get("set-cookie") ?? "", /^knot_session=; .*Max-Age=0/);
  const after = await request(`${t.url}/api/me`, null, { headers: { cookie } });
  assert.equal(after.status, 401);
  assert.equal(after.body.code, "UNAUTHENTICATED");
});

test("a scoped token opens a session with the same scopes, never more", async () => {
  const user = await t.app.store.getUserByName("dora");
  const scoped = await t.token(user!, { permissions: ["plugin.demo.*"], write: false });
  const { body, cookie } = await signIn(scoped);
  assert.deepEqual(body.user.scopes, { permissions: ["plugin.demo.*"], write: false });
  const create = await request(`${t.url}/api/tokens`, null, { method: "POST", headers: { cookie, "x-knot-csrf": "1" }, body: JSON.stringify({ name: "escalate" }) });
  assert.equal(create.status, 403);
});

test("behind a proxy that passes its own Host, the UI's origin is the configured public origin, and no other", async () => {
  const proxied = await startApp({ config: { oauth: { ...DEFAULT_CONFIG.oauth, publicUrl: "https://knot.example.com" } } });
  try {
    const secret = (await proxied.userWithToken("pia", { grants: ["knot.tools.author"] })).token;
    // The proxy forwards to 127.0.0.1:<port>, so Host names the backend while Origin names the public site.
    const asBrowser = (origin: string) => ({ "content-type": "application/json", "x-knot-csrf": "1", origin });
    const signedIn = await fetch(`${proxied.url}/api/session`, { method: "POST", headers: asBrowser("https://knot.example.com"), body: JSON.stringify({ token: secret }) });
    assert.equal(signedIn.status, 200);
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    const body = JSON.stringify({ name: "proxied_tool", code: "export default () => 1" });
    assert.equal((await request(`${proxied.url}/api/tools`, null, { method: "POST", headers: { cookie, ...asBrowser("https://knot.example.com") }, body })).status, 201);
    for (const origin of ["https://evil.example", "https://knot.example.com.evil.example", "http://knot.example.com"]) {
      assert.equal((await request(`${proxied.url}/api/tools`, null, { method: "POST", headers: { cookie, ...asBrowser(origin) }, body })).status, 403, origin);
      assert.equal((await fetch(`${proxied.url}/api/session`, { method: "POST", headers: asBrowser(origin), body: JSON.stringify({ token: secret }) })).status, 403, origin);
    }
  } finally {
    await proxied.close();
  }
});
