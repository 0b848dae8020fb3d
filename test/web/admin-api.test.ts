/** Tokens, users, groups and grants routes the UI uses: who may do what, and what is never shown. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;
let admin: string;
let user: { id: string; token: string };

before(async () => {
  t = await startApp();
  admin = (await t.userWithToken("root", { admin: true })).token;
  const u = await t.userWithToken("eve");
  user = { id: u.user.id, token: u.token };
});
after(() => t.close());

const post = (path: string, token: string, body: unknown) => request(`${t.url}${path}`, token, { method: "POST", body: JSON.stringify(body) });

test("tokens: created with expiry and scopes, secret shown once, listed without it, revoked by the owner", async () => {
  const created = await post("/api/tokens", user.token, { name: "assistant", expiresInDays: 30, scopes: ["plugin.demo.*"], write: false });
  assert.equal(created.status, 201);
  assert.match(created.body.secret, /^kt_/);
  assert.deepEqual(created.body.token.scopes, { permissions: ["plugin.demo.*"], write: false });
  assert.ok(Date.parse(created.body.token.expiresAt) > Date.now() + 29 * 86_400_000);
  const listed = await request(`${t.url}/api/tokens`, user.token);
  assert.ok(!JSON.stringify(listed.body).includes(created.body.secret));
  assert.ok(!JSON.stringify(listed.body).includes("secretHash"));
  assert.equal((await request(`${t.url}/api/me`, created.body.secret)).status, 200);
  const revoked = await request(`${t.url}/api/tokens/${created.body.token.id}`, user.token, { method: "DELETE" });
  assert.equal(revoked.body.revoked, true);
  assert.equal((await request(`${t.url}/api/me`, created.body.secret)).status, 401);
});

test("tokens: bad input is refused with a coded error; others' tokens are invisible to non-admins", async () => {
  assert.equal((await post("/api/tokens", user.token, { name: "" })).body.code, "INVALID_ARGUMENT");
  assert.equal((await post("/api/tokens", user.token, { name: "x", expiresInDays: 0 })).body.code, "INVALID_ARGUMENT");
  assert.equal((await post("/api/tokens", user.token, { name: "x", scopes: ["Bad Scope"] })).body.code, "INVALID_ARGUMENT");
  assert.equal((await post("/api/tokens", user.token, { name: "web session" })).body.code, "INVALID_ARGUMENT");
  const rootsToken = (await post("/api/tokens", admin, { name: "root-only" })).body.token.id;
  assert.equal((await request(`${t.url}/api/tokens/${rootsToken}`, user.token, { method: "DELETE" })).status, 404);
  assert.equal((await post("/api/tokens", user.token, { name: "for-root", userId: "someone-else" })).status, 403);
  assert.equal((await request(`${t.url}/api/tokens?all=1`, user.token)).status, 403);
});

test("attack: a token's scope list is bounded, so its checks cannot be made to cost every request (each tool × each scope)", async () => {
  const many = Array.from({ length: 50_000 }, (_, i) => `s${i}`);
  const refused = await post("/api/tokens", user.token, { name: "many", scopes: [...many, "knot.mcp"] });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, "INVALID_ARGUMENT");
  assert.match(JSON.stringify(refused.body), /at most 64 scopes/);
  const longest = await post("/api/tokens", user.token, { name: "long", scopes: [`plugin.${"a".repeat(300)}`] });
  assert.equal(longest.body.code, "INVALID_ARGUMENT");
  const fits = await post("/api/tokens", user.token, { name: "fits", scopes: Array.from({ length: 64 }, (_, i) => `plugin.p${i}.*`) });
  assert.equal(fits.status, 201, JSON.stringify(fits.body));
});

test("tokens: a request for less authority is never silently granted more (write is checked with or without scopes; unknown keys are refused)", async () => {
  const countBefore = (await request(`${t.url}/api/tokens`, user.token)).body.tokens.length;
  for (const write of ["false", 0, null, "no"]) {
    const refused = await post("/api/tokens", user.token, { name: "read-only?", write });
    assert.equal(refused.status, 400, `write: ${JSON.stringify(write)}`);
    assert.equal(refused.body.code, "INVALID_ARGUMENT");
    assert.match(refused.body.error.message ?? refused.body.error, /write must be true or false/);
  }
  // A misspelt expiry (or any key the route does not know) would otherwise give a token that never expires.
  const misspelt = await post("/api/tokens", user.token, { name: "short-lived?", expiresAt: "2026-01-01T00:00:00Z" });
  assert.equal(misspelt.status, 400);
  assert.equal(misspelt.body.code, "INVALID_ARGUMENT");
  assert.match(JSON.stringify(misspelt.body), /expiresAt.*expiresInDays/);
  assert.equal((await request(`${t.url}/api/tokens`, user.token)).body.tokens.length, countBefore, "no token was created by a refused request");
  // write: false without scopes still works: every permission, read-only.
  const readOnly = await post("/api/tokens", user.token, { name: "read-only", write: false });
  assert.equal(readOnly.status, 201);
  assert.deepEqual(readOnly.body.token.scopes, { permissions: ["*"], write: false });
});

test("an admin creates a user, a token for them, group memberships and grants; non-admins cannot", async () => {
  const created = await post("/api/users", admin, { name: "fred" });
  assert.equal(created.status, 201);
  const fred = created.body.user.id;
  const fredsToken = await post("/api/tokens", admin, { userId: fred, name: "sign-in", expiresInDays: 7 });
  assert.equal((await request(`${t.url}/api/me`, fredsToken.body.secret)).body.name, "fred");
  const groups = await request(`${t.url}/api/users/${fred}/groups`, admin, { method: "PUT", body: JSON.stringify({ groups: ["ops", "dev"] }) });
  assert.deepEqual(groups.body.groups, ["dev", "ops"]);
  assert.equal((await post("/api/grants", admin, { subject: "group:ops", permission: "plugin.demo.view_dashboard" })).status, 201);
  assert.equal((await request(`${t.url}/plugins/demo/echo_word?word=hi`, fredsToken.body.secret)).status, 200);
  const grants = await request(`${t.url}/api/grants`, admin);
  assert.ok(grants.body.grants.some((g: any) => g.subject === "group:ops" && g.permission === "plugin.demo.view_dashboard"));
  assert.deepEqual(grants.body.permissions.find((p: any) => p.plugin === "demo").ids, ["plugin.demo.view_dashboard", "plugin.demo.admin_dashboard"]);
  const revoked = await request(`${t.url}/api/grants?subject=group:ops&permission=plugin.demo.view_dashboard`, admin, { method: "DELETE" });
  assert.equal(revoked.status, 200);
  assert.equal((await request(`${t.url}/plugins/demo/echo_word?word=hi`, fredsToken.body.secret)).status, 403);
  for (const [method, path, body] of [["GET", "/api/users"], ["POST", "/api/users", { name: "x" }], ["POST", "/api/grants", { subject: `user:${user.id}`, permission: "plugin.demo.view_dashboard" }], ["GET", "/api/audit/chain"]] as const) {
    const res = await request(`${t.url}${path}`, user.token, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
    assert.equal(res.status, 403, `${method} ${path} is for admins`);
  }
});

test("an admin cannot remove their own admin flag", async () => {
  const me = await request(`${t.url}/api/me`, admin);
  const res = await request(`${t.url}/api/users/${me.body.id}`, admin, { method: "PATCH", body: JSON.stringify({ isAdmin: false }) });
  assert.equal(res.body.code, "CONFLICT");
});

test("the audit chain status is reported to admins", async () => {
  const res = await request(`${t.url}/api/audit/chain`, admin);
  assert.equal(res.body.ok, true);
  assert.ok(res.body.rows >= 1);
});
