/** Plugin pages (gated, sanitised), the editor's completion/preview routes, the streamed run and the static UI. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { stripTypeScriptTypes } from "node:module";
import { after, before, test } from "node:test";
import { exportedNames } from "../../client-modules/index.ts";
import { KNOT_MODULE_DOCS } from "../../src/web/editor-modules.ts";
import { renderPageDocument } from "../../src/web/page-document.ts";
import { renderMarkdown } from "../../src/web/markdown.ts";
import { webRoutes } from "../../src/web/web-routes.ts";
import { createRouter } from "../../src/http/router.ts";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;
let viewer: string;
let stranger: string;

before(async () => {
  t = await startApp();
  viewer = (await t.userWithToken("vic", { grants: ["plugin.demo.view_dashboard", "knot.tools.author"] })).token;
  stranger = (await t.userWithToken("sam")).token;
});
after(() => t.close());

test("markdown is rendered without raw HTML, scripts, event handlers or javascript: links", () => {
  const html = renderMarkdown([
    "# Title", "<script>alert(1)</script>", '<img src=x onerror="alert(2)">', "[click](javascript:alert(3))",
    "[ok](https://example.org)", "**bold** `code`",
  ].join("\n\n"));
  assert.match(html, /<h1>Title<\/h1>/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.doesNotMatch(html, /<script|<img|<[^>]*\bonerror|href="javascript:/i);
  assert.match(html, /<a href="https:\/\/example.org" rel="noopener noreferrer nofollow" target="_blank">ok<\/a>/);
  assert.match(html, /<strong>bold<\/strong> <code>code<\/code>/);
});

test("page documents: kv, table and stat values stay text; bad blocks are reported, not fatal", () => {
  const page = renderPageDocument({
    title: "T", blocks: [
      { type: "kv", items: [{ key: "<b>k</b>", value: { nested: 1 } }] },
      { type: "table", columns: ["a"], rows: [["<i>x</i>", "extra"]] },
      { type: "stat", label: "n", value: 3 },
      { type: "html", html: "<script></script>" },
    ],
  });
  assert.deepEqual(page.blocks[0], { type: "kv", items: [{ key: "<b>k</b>", value: '{"nested":1}' }] });
  assert.deepEqual(page.blocks[1], { type: "table", columns: ["a"], rows: [["<i>x</i>"]] });
  assert.deepEqual(page.blocks[2], { type: "stat", label: "n", value: "3", hint: null });
  assert.equal(page.blocks.length, 3);
  assert.match(page.problems[0]!, /blocks\[3\]: unknown block type "html"/);
  assert.equal(renderPageDocument(42).problems.length, 1);
});

test("GET /api/pages lists only the pages whose gate the caller passes; rendering is gated too", async () => {
  const mine = await request(`${t.url}/api/pages`, viewer);
  assert.deepEqual(mine.body.pages, [{ plugin: "demo", path: "/status", label: "Demo status", permission: "plugin.demo.view_dashboard", menuLabel: "Demo status", icon: null, default: false }]);
  assert.deepEqual((await request(`${t.url}/api/pages`, stranger)).body.pages, []);
  const page = await request(`${t.url}/api/pages/demo/status?note=${encodeURIComponent("<script>x</script> **hi**")}`, viewer);
  assert.equal(page.status, 200);
  assert.equal(page.body.title, "Demo status");
  const markdown = page.body.blocks.find((b: any) => b.type === "markdown").html;
  assert.match(markdown, /Hello, vic/);
  assert.match(markdown, /&lt;script&gt;x&lt;\/script&gt; <strong>hi<\/strong>/);
  assert.deepEqual(page.body.blocks.find((b: any) => b.type === "stat"), { type: "stat", label: "Sum from plugin:demo/calc", value: "5", hint: "add(2, 3)" });
  assert.equal((await request(`${t.url}/api/pages/demo/status`, stranger)).body.code, "PERMISSION_DENIED");
  assert.equal((await request(`${t.url}/api/pages/demo/nope`, viewer)).body.code, "NOT_FOUND");
});

test("the editor's knot:* completion names are exactly what sandbox/guest exports", () => {
  const guest = path.resolve(import.meta.dirname, "../../sandbox/guest");
  for (const module of KNOT_MODULE_DOCS) {
    const file = path.join(guest, `${module.specifier.slice("knot:".length)}.ts`);
    const names = exportedNames(stripTypeScriptTypes(fs.readFileSync(file, "utf8"))).filter((n) => /^[a-z]/.test(n));
    assert.deepEqual(module.exports.map((e) => e.name).sort(), names.sort(), module.specifier);
  }
});

test("GET /api/editor/modules lists plugin client modules with their exports (following the alias) and the caller's libs", async () => {
  await request(`${t.url}/api/tools`, viewer, { method: "POST", body: JSON.stringify({ name: "helpers", kind: "lib", code: "export function shout(s) { return s; }" }) });
  const { body } = await request(`${t.url}/api/editor/modules`, viewer);
  const byName = new Map(body.modules.map((m: any) => [m.specifier, m.exports.map((e: any) => e.name)]));
  assert.deepEqual(byName.get("plugin:demo"), ["Widgets"]);
  assert.deepEqual(byName.get("plugin:demo/format"), ["titled"]);
  assert.deepEqual(byName.get("lib:helpers"), ["shout"]);
  assert.ok(byName.has("knot:tool"));
});

test("POST /api/editor/preview answers the tool as tools/list shows it, or the parameter error", async () => {
  const ok = await request(`${t.url}/api/editor/preview`, viewer, { method: "POST", body: JSON.stringify({ name: "p", description: "", parameters: [{ name: "n", type: "int", required: true, secret: true }], readOnly: true }) });
  assert.deepEqual(ok.body.tool, {
    name: "p", description: 'User tool "p".', inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    annotations: { readOnlyHint: true, destructiveHint: false },
  });
  const bad = await request(`${t.url}/api/editor/preview`, viewer, { method: "POST", body: JSON.stringify({ name: "p", parameters: [{ name: "n", type: "integer" }] }) });
  assert.equal(bad.body.code, "INVALID_ARGUMENT");
});

test("POST /api/runs streams progress and log lines, then the outcome, and audits the run", async () => {
  const code = `import { progress } from "knot:tool";\nexport default function () { progress(1, 2, "half"); console.log("<b>hi</b>"); return { summary: "done" }; }`;
  const res = await fetch(`${t.url}/api/runs`, { method: "POST", headers: { authorization: `Bearer ${viewer}`, "content-type": "application/json" }, body: JSON.stringify({ draft: { name: "streamed", code }, args: {} }) });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /application\/x-ndjson/);
  const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.find((l) => l.type === "progress"), { type: "progress", done: 1, total: 2, message: "half" });
  const outcome = lines.at(-1);
  assert.equal(outcome.type, "outcome");
  assert.equal(outcome.ok, true);
  assert.deepEqual(outcome.result, { summary: "done" });
  const audited = await t.app.store.queryAudit({ tool: "draft:streamed" });
  assert.equal(audited[0]?.outcome, "ok");
  assert.equal(audited[0]?.summary, "done");
  const unauthorised = await request(`${t.url}/api/runs`, stranger, { method: "POST", body: JSON.stringify({ draft: { code } }) });
  assert.equal(unauthorised.body.code, "PERMISSION_DENIED");
});

test("the UI is served at / with a strict Content-Security-Policy; only built files are served", async () => {
  const dist = tempDir("knot-ui-dist-");
  fs.mkdirSync(path.join(dist, "assets"));
  fs.writeFileSync(path.join(dist, "index.html"), "<!doctype html><title>ui</title>");
  fs.writeFileSync(path.join(dist, "assets", "app.js"), "console.log(1)");
  const router = createRouter(webRoutes(t.app, { dist }));
  const index = router.match("GET", "/");
  assert.ok(index && "route" in index);
  const res = await fetch(`${t.url}/`);
  if (res.status === 200) {
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.match(res.headers.get("content-type") ?? "", /text\/html/);
  } else {
    assert.equal((await res.json() as any).code, "NOT_FOUND", "an unbuilt UI is a clear 404");
  }
  for (const bad of ["/assets/..%2Fpackage.json", "/assets/..%5Cpackage.json", "/assets/app.ts", "/assets/.env", "/package.json"]) {
    assert.equal((await fetch(`${t.url}${bad}`)).status, 404, bad);
  }
});
