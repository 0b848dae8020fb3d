/**
 * Issue 10 "also noticed": `SameSite=Strict` does not separate the ports (or sibling hosts) of one
 * site. Where the scheme is https (TLS here, or a reverse proxy saying `x-forwarded-proto: https`)
 * the session cookie is `__Host-knot_session`: Secure, Path=/, no Domain, so the browser accepts it
 * only from this https origin and a cookie tossed by an http page or a sibling host under that
 * name cannot exist; a plain `knot_session` cookie is then ignored. Plain-http loopback keeps
 * `knot_session` without Secure (why: docs/security-attacks.md, "Issue 10 — gates").
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;
let token: string;
const HTTPS = { "x-forwarded-proto": "https" };

before(async () => {
  t = await startApp();
  token = (await t.userWithToken("hosta")).token;
});
after(() => t.close());

async function signIn(headers: Record<string, string>) {
  const res = await fetch(`${t.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", "x-knot-csrf": "1", ...headers }, body: JSON.stringify({ token }) });
  assert.equal(res.status, 200);
  const setCookie = res.headers.get("set-cookie") ?? "";
  return { setCookie, pair: setCookie.split(";")[0]!, value: setCookie.split(";")[0]!.split("=")[1]! };
}

test("over https the session cookie is __Host-knot_session: Secure, Path=/, no Domain", async () => {
  const { setCookie } = await signIn(HTTPS);
  assert.match(setCookie, /^__Host-knot_session=kts_[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict; Secure; Max-Age=43200$/);
  assert.doesNotMatch(setCookie, /Domain=/i);
});

test("over https only the __Host- cookie is read: a tossed plain knot_session cookie signs nobody in", async () => {
  const { pair, value } = await signIn(HTTPS);
  assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie: pair, ...HTTPS } })).status, 200);
  const tossed = await request(`${t.url}/api/me`, null, { headers: { cookie: `knot_session=${value}`, ...HTTPS } });
  assert.equal(tossed.status, 401, "the unprefixed name is not this origin's cookie over https");
});

test("plain http keeps knot_session without Secure, and does not read the https cookie name", async () => {
  const { setCookie, value } = await signIn({});
  assert.match(setCookie, /^knot_session=kts_[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie: `__Host-knot_session=${value}` } })).status, 401);
  assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie: `knot_session=${value}` } })).status, 200);
});

test("sign-out over https clears the __Host- cookie and revokes the session", async () => {
  const { pair } = await signIn(HTTPS);
  const out = await fetch(`${t.url}/api/session`, { method: "DELETE", headers: { cookie: pair, "x-knot-csrf": "1", ...HTTPS } });
  assert.equal(out.status, 200);
  assert.match(out.headers.get("set-cookie") ?? "", /^__Host-knot_session=; Path=\/; HttpOnly; SameSite=Strict; Secure; Max-Age=0$/);
  assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie: pair, ...HTTPS } })).status, 401);
});

test("plain http: a second knot_session cookie planted by a page on another port (a longer Path, sent first) signs nobody in", async () => {
  const victim = await signIn({});
  const attacker = await t.userWithToken("tosser");
  const planted = await fetch(`${t.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", "x-knot-csrf": "1" }, body: JSON.stringify({ token: attacker.token }) });
  const plantedPair = (planted.headers.get("set-cookie") ?? "").split(";")[0]!;
  await planted.body?.cancel();
  // Browsers send the cookie with the longer path first: the attacker's, then the victim's.
  for (const cookie of [`${plantedPair}; ${victim.pair}`, `${victim.pair}; ${plantedPair}`]) {
    const res = await request(`${t.url}/api/tools`, null, { headers: { cookie } });
    assert.equal(res.status, 401, `${cookie}: ${JSON.stringify(res.body).slice(0, 200)}`);
  }
  assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie: victim.pair } })).status, 200, "one cookie still signs in");
});
