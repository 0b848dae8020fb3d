/**
 * Boundary: what a browser session and a narrowed credential can do. Threats: a session that
 * outlives the short-lived token it was opened with, or its revocation; a page on another port of the same host
 * (same-site for cookies, so SameSite=Strict still sends the cookie) forging changes; an admin's
 * scoped or read-only token used to manage users, grants, tokens or the audit log.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { hashSecret } from "../../src/auth/secrets.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;

before(async () => {
  t = await startApp();
});
after(() => t.close());

async function signIn(token: string): Promise<{ status: number; cookie: string; setCookie: string; body: any }> {
  const res = await fetch(`${t.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", "x-knot-csrf": "1" }, body: JSON.stringify({ token }) });
  const setCookie = res.headers.get("set-cookie") ?? "";
  return { status: res.status, cookie: setCookie.split(";")[0]!, setCookie, body: await res.json() };
}

test("a session never outlives the token that opened it", async () => {
  const user = await t.user("shorty", { grants: ["knot.tools.author"] });
  const expiresAt = new Date(Date.now() + 10 * 60_000).toISOString();
  const token = await t.token(user, null, { expiresAt });
  const { status, setCookie, body } = await signIn(token);
  assert.equal(status, 200);
  assert.equal(body.expiresAt, expiresAt, "capped at the token's expiry, not the 12 h session length");
  const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)?.[1]);
  assert.ok(maxAge > 500 && maxAge <= 600, `cookie Max-Age ${maxAge} is within the token's remaining life`);
  const stored = await t.app.store.findTokenByHash(hashSecret(setCookie.split(";")[0]!.split("=")[1]!));
  assert.equal(stored?.expiresAt, expiresAt);
  // A long-lived token still gets the ordinary 12-hour session.
  const long = await signIn(await t.token(user));
  assert.match(long.setCookie, /Max-Age=43200$/);
});

test("revoking the token that opened a session ends the session at once", async () => {
  const { user, token } = await t.userWithToken("revoker");
  const { cookie } = await signIn(token);
  assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie } })).status, 200);
  const [parent] = (await t.app.store.listTokens(user.id)).filter((r) => r.parentId === null);
  assert.ok(parent);
  await t.app.store.revokeToken(parent.id);
  assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie } })).status, 401, "the session died with its token");
  const sessions = (await t.app.store.listTokens(user.id)).filter((r) => r.parentId === parent.id);
  assert.equal(sessions.length, 1);
  assert.notEqual(sessions[0]!.revokedAt, null);
});

test("a page on another port of the same host cannot use the session cookie to change anything", async () => {
  const token = (await t.userWithToken("victim", { grants: ["knot.tools.author"] })).token;
  const { cookie } = await signIn(token);
  const otherPort = "http://127.0.0.1:1";
  const body = JSON.stringify({ name: "planted", code: "export default () => 1" });
  const attempts: [string, Record<string, string>][] = [
    ["same-site fetch", { cookie, "x-knot-csrf": "1", "sec-fetch-site": "same-site", origin: otherPort }],
    ["other origin, no fetch metadata", { cookie, "x-knot-csrf": "1", origin: otherPort }],
    ["opaque origin (sandboxed frame)", { cookie, "x-knot-csrf": "1", origin: "null" }],
    ["simple form post", { cookie, "content-type": "text/plain" }],
  ];
  for (const [label, headers] of attempts) {
    const res = await request(`${t.url}/api/tools`, null, { method: "POST", headers, body });
    assert.equal(res.status, 403, label);
    assert.equal(res.body.code, "PERMISSION_DENIED", label);
    const plugin = await request(`${t.url}/plugins/demo/lib_exports`, null, { headers });
    assert.equal(plugin.status, 403, `${label} on /plugins`);
  }
  assert.equal((await request(`${t.url}/api/tools`, token)).body.tools.length, 0, "nothing was created");
});

test("an admin's scoped or read-only token cannot manage users, grants, tokens, the audit log or plugins", async () => {
  const admin = await t.user("boss", { admin: true });
  const victim = await t.user("someone");
  const scoped = await t.token(admin, { permissions: ["plugin.demo.*", "knot.mcp"], write: true });
  const readOnly = await t.token(admin, { permissions: ["*"], write: false });
  for (const [label, token] of [["scoped", scoped], ["read-only", readOnly]] as const) {
    const attempts: [string, string, unknown?][] = [
      ["POST", "/api/users", { name: `made-by-${label}`, isAdmin: true }],
      ["PATCH", `/api/users/${victim.id}`, { isAdmin: true }],
      ["POST", "/api/grants", { subject: `user:${victim.id}`, permission: "plugin.demo.admin_dashboard" }],
      ["POST", "/api/tokens", { name: "wider", userId: victim.id }],
      ["POST", "/api/tokens", { name: "wider" }],
    ];
    if (label === "scoped") attempts.push(["GET", "/api/users"], ["GET", "/api/audit"], ["GET", "/api/plugins"], ["GET", "/api/tokens?all=1"]);
    for (const [method, path, body] of attempts) {
      const res = await request(`${t.url}${path}`, token, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      assert.equal(res.status, 403, `${label}: ${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "PERMISSION_DENIED");
    }
  }
  assert.equal((await t.app.store.getUser(victim.id))?.isAdmin, false);
  assert.deepEqual(await t.app.store.permissionsOf(victim.id), []);
  assert.equal((await t.app.store.listTokens(admin.id)).length, 2, "no token was minted");
  // The unscoped admin token can, which shows the routes above were really reachable.
  const full = await t.token(admin);
  assert.equal((await request(`${t.url}/api/users`, full)).status, 200);
});
