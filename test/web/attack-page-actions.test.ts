/**
 * Attacks on interactive plugin pages: cross-site posts, actions reaching another plugin or an
 * ungranted handler, script in toasts and labels, and redirects off this origin.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeFormPlugins } from "../helpers/forms-plugin.ts";
import { sameOriginPath } from "../../src/web/page-envelope.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
let t: TestApp;
let manager: string;
let viewer: string;
let cookie: string;

before(async () => {
  const root = tempDir();
  writeFormPlugins(root);
  t = await startApp({ pluginsDir: root });
  manager = (await t.userWithToken("mia", { grants: ["plugin.fleet.view", "plugin.fleet.manage"] })).token;
  viewer = (await t.userWithToken("vic", { grants: ["plugin.fleet.view"] })).token;
  const signIn = await fetch(`${t.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", "x-knot-csrf": "1" }, body: JSON.stringify({ token: manager }) });
  cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0]!;
});
after(() => t.close());

const action = (name: string) => `${t.url}/api/pages/fleet/hosts/actions/${name}`;

test("a cookie-signed form post without the CSRF header, or from another site, never reaches the handler", async () => {
  const before = (await t.app.store.queryAudit({ tool: "fleet/add_host" })).length;
  const missing = await request(action("add_host"), null, { method: "POST", headers: { ...FORM, cookie }, body: "host=evil" });
  assert.equal(missing.status, 403);
  assert.match(missing.body.error, /x-knot-csrf/);
  const crossSite = await request(action("add_host"), null, { method: "POST", headers: { ...FORM, cookie, "x-knot-csrf": "1", "sec-fetch-site": "cross-site" }, body: "host=evil" });
  assert.equal(crossSite.status, 403);
  const crossOrigin = await request(action("add_host"), null, { method: "POST", headers: { ...FORM, cookie, "x-knot-csrf": "1", origin: "https://evil.example" }, body: "host=evil" });
  assert.equal(crossOrigin.status, 403);
  assert.equal((await t.app.store.queryAudit({ tool: "fleet/add_host" })).length, before, "the handler never ran");
  const ok = await request(action("add_host"), null, { method: "POST", headers: { ...FORM, cookie, "x-knot-csrf": "1" }, body: "host=fine" });
  assert.equal(ok.status, 200, "the same request with the proof passes");
});

test("an action naming another plugin's handler, a path, or an undeclared handler is not addressable", async () => {
  for (const name of ["other%2Fsteal", "..%2F..%2Fother%2Fsteal", "steal", "hosts_page%3Fx", "%2Fplugins%2Fother%2Fsteal"]) {
    const res = await request(action(name), manager, { method: "POST", headers: FORM, body: "" });
    assert.equal(res.status, 404, `${name}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, "NOT_ADDRESSABLE", name);
  }
  assert.equal((await t.app.store.queryAudit({ tool: "other/steal" })).length, 0);
  // Another plugin's page route cannot be borrowed either: the page must exist in that plugin.
  const borrowed = await request(`${t.url}/api/pages/other/hosts/actions/steal`, manager, { method: "POST", headers: FORM, body: "" });
  assert.equal(borrowed.body.code, "NOT_FOUND");
});

test("a page document whose form or button points at another plugin is refused at render", async () => {
  const { renderBlocks } = await import("../../src/web/page-document.ts");
  const { blocks, problems } = renderBlocks([
    { type: "form", action: "other/steal", fields: [] },
    { type: "button", label: "x", action: "https://evil.example/" },
    { type: "form", action: "ok", fields: [{ name: "p", type: "select", data: "other/list" }] },
  ]);
  assert.deepEqual(blocks, []);
  assert.equal(problems.length, 3);
});

test("a select's data handler declared write is never run while rendering (a GET without CSRF proof)", async () => {
  const before = (await t.app.store.queryAudit({ tool: "fleet/add_host" })).length;
  const res = await request(`${t.url}/api/pages/fleet/wiring`, manager);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.blocks[0].fields[0].options, []);
  assert.match(res.body.problems[0], /data handler add_host: is declared write/);
  assert.equal((await t.app.store.queryAudit({ tool: "fleet/add_host" })).length, before, "add_host never ran");
});

test("an action the user lacks the permission for is refused before it runs", async () => {
  const viewerAdd = await request(action("add_host"), viewer, { method: "POST", headers: FORM, body: "host=sneaky" });
  assert.equal(viewerAdd.status, 403);
  const restart = await request(action("restart"), manager, { method: "POST", headers: FORM, body: "" });
  assert.equal(restart.status, 403);
  const stranger = (await t.userWithToken("sam")).token;
  const noPage = await request(action("go_away"), stranger, { method: "POST", headers: FORM, body: "to=/" });
  assert.equal(noPage.status, 403, "without the page's own gate, none of its actions run");
});

test("a read-only token (or a scope that leaves the handler out) cannot run a write action", async () => {
  const user = (await t.user("rhea", { grants: ["plugin.fleet.view", "plugin.fleet.manage"] }));
  const readOnly = await t.token(user, { permissions: ["*"], write: false });
  const refused = await request(action("add_host"), readOnly, { method: "POST", headers: FORM, body: "host=ro" });
  assert.equal(refused.status, 403);
  assert.match(refused.body.error, /read-only token/);
  const narrow = await t.token(user, { permissions: ["plugin.fleet.view", "plugin.fleet.hosts_page"], write: true });
  assert.equal((await request(action("add_host"), narrow, { method: "POST", headers: FORM, body: "host=ro" })).status, 403);
  const attempts = (await t.app.store.queryAudit({ tool: "fleet/add_host" })).filter((row) => (row.args as any).host === "ro");
  assert.deepEqual(attempts.map((row) => row.outcome), ["PERMISSION_DENIED", "PERMISSION_DENIED"], "both refused, both audited, neither ran");
});

test("script in a toast, a label or a submit text comes back as text, never as markup the UI would insert", async () => {
  const res = await request(action("hostile"), manager, { method: "POST", headers: FORM, body: `note=${encodeURIComponent("<svg onload=alert(1)>")}` });
  assert.equal(res.status, 200);
  assert.equal(typeof res.body.toast, "string");
  assert.equal(res.body.toast, '<img src=x onerror="globalThis.pwned=1"><svg onload=alert(1)>', "kept as literal text (the UI renders it as a text node)");
  const form = res.body.blocks[0];
  assert.deepEqual(Object.keys(form).sort(), ["action", "fields", "submit", "type"]);
  assert.equal(form.submit, "<b>go</b>");
  assert.equal(form.fields[0].label, "<script>globalThis.pwned=2</script>");
  assert.ok(!("html" in form) && !("html" in form.fields[0]), "no block but markdown carries html");
});

test("redirects off this origin are dropped with a problem", async () => {
  const evil = ["https://evil.example/", "//evil.example/x", "/\\evil.example", "/\\/evil.example", "javascript:alert(1)", " /x", "/\t/evil.example", "http:/evil.example", "\\\\evil.example", "/%0a/x",
    // Dot segments that resolve to a path starting "//" (the page then followed it as //host).
    "/.//evil.example/x", "/a/..//evil.example", "/%2e//evil.example", "/%2E%2E//evil.example", "/./%2e//evil.example"];
  for (const to of evil) {
    const res = await request(action("go_away"), manager, { method: "POST", body: JSON.stringify({ to }) });
    assert.equal(res.status, 200);
    if (to === "/%0a/x") {
      assert.equal(res.body.redirect, "/%0a/x", "an encoded newline is only text in a path");
      continue;
    }
    assert.equal(res.body.redirect, undefined, `${JSON.stringify(to)} must not be followed`);
    assert.match(res.body.problems[0], /redirect must be a path on this site/);
  }
  for (const to of ["/#/tools", "/api/me?x=1", "/a/b#c"]) assert.equal(sameOriginPath(to), to);
  const notString = await request(action("go_away"), manager, { method: "POST", body: JSON.stringify({ to: { href: "https://evil.example" } }) });
  assert.equal(notString.body.redirect, undefined);
});
