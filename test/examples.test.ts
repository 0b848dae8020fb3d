import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Principal } from "../src/identity/principal.ts";
import { cli } from "./helpers/cli.ts";
import { request, startApp, tempDir, type TestApp } from "./helpers/fixtures.ts";

const USER_TOOLS = path.resolve(import.meta.dirname, "../examples/user-tools");
const read = (file: string) => fs.readFileSync(path.join(USER_TOOLS, file), "utf8");

describe("the shipped examples", () => {
  let t: TestApp;
  let viewer: string, platform: string, nobody: string;
  let platformPrincipal: Principal;

  before(async () => {
    t = await startApp();
    viewer = (await t.userWithToken("viewer", { grants: ["plugin.demo.view_dashboard"] })).token;
    const p = await t.userWithToken("plat", { groups: ["platform"], grants: ["plugin.metrics.export", "plugin.demo.view_dashboard"] });
    platform = p.token;
    platformPrincipal = (await t.app.auth.principalFor(p.user.id))!;
    nobody = (await t.userWithToken("nobody")).token;
  });
  after(() => t.close());

  it("load with no failures or warnings", () => {
    assert.deepEqual([...t.app.pool.registry.loaded.keys()], ["demo", "metrics", "wordcount"]);
    assert.deepEqual(t.app.pool.registry.failed, []);
    assert.deepEqual(t.app.pool.registry.warnings, []);
  });

  it("demo: echo_word is gated by view_dashboard; lib_exports composes plugin:demo/calc and its self-gate", async () => {
    assert.equal((await request(`${t.url}/plugins/demo/echo_word?word=hi`, nobody)).status, 403);
    assert.deepEqual((await request(`${t.url}/plugins/demo/echo_word?word=hi`, viewer)).body, { word: "hi", length: 2, by: "viewer", method: "GET" });
    const open = await request(`${t.url}/plugins/demo/lib_exports`, nobody);
    assert.deepEqual(open.body, { add: 5, scale: 10, counter: 2, gatedReport: { ok: false, error: "plugin.demo.view_dashboard not granted" } });
    const allowed = await request(`${t.url}/plugins/demo/lib_exports`, viewer);
    assert.deepEqual(allowed.body.gatedReport, { ok: true, value: { visitors: 42, by: "viewer" } });
  });

  it("wordcount: a Python peer (no main.js) whose count_words handler is gated by count", async () => {
    assert.equal((await request(`${t.url}/plugins/wordcount/count_words?text=a+b`, nobody)).status, 403);
    const counter = (await t.userWithToken("wc", { grants: ["plugin.wordcount.count"] })).token;
    assert.deepEqual((await request(`${t.url}/plugins/wordcount/count_words?text=a+b`, counter)).body, { words: 2, by: "wc" });
  });

  it("metrics: export_all is gated by export; export_metrics refuses callers outside platform", async () => {
    assert.equal((await request(`${t.url}/plugins/metrics/export_all`, viewer)).status, 403);
    const res = await request(`${t.url}/plugins/metrics/export_all`, platform, { method: "POST", body: JSON.stringify({ range: "3h" }) });
    assert.equal(res.body.rows.length, 3);
    const tool = t.app.pool.registry.mcpTool("export_metrics")!;
    assert.deepEqual(tool.decl.inputSchema, {
      type: "object",
      properties: { hours: { type: "integer", description: "Hours to export.", default: 24 }, scope: { type: "string", description: "What to export." } },
      required: ["scope"],
    });
  });

  it("user tools: the demo and metrics client SDKs and a lib shared by two tools", async () => {
    const run = async (file: string, args: Record<string, unknown> = {}) =>
      t.app.runner.run(platformPrincipal, { name: path.basename(file).replace(/\..*$/, ""), code: read(file), language: file.endsWith(".ts") ? "ts" : "js" }, args, { validated: true });
    const echo = await run("echo-widgets.js", { word: "hey" });
    assert.deepEqual(echo.ok && echo.result, { kind: "json", value: { word: "hey", length: 3, by: "plat", method: "GET" } });
    const titled = await run("titled.js", { text: "hELLO wORLD" });
    assert.deepEqual(titled.ok && titled.result, { kind: "text", text: "Hello World" });
    const report = await run("metrics-report.js", { range: "6h" });
    assert.ok(report.ok, JSON.stringify(report));
    assert.deepEqual(report.result, { kind: "json", value: { range: "6h", total: 97, rows: 6, summary: "total 97 over 6h" } });
    assert.deepEqual(report.log.map((l) => l.message), ["computed 6 rows"]);

    await t.app.store.createUserTool(platformPrincipal.user.id, { name: "text-utils", kind: "lib", description: "", language: "js", parameters: [], code: read("text-utils.js"), sharing: "everyone", active: true });
    const shout = await run("shout.ts", { text: "hi" });
    assert.deepEqual(shout.ok && shout.result, { kind: "text", text: "HI!" });
    const stats = await run("word-stats.js", { text: "one two three" });
    assert.deepEqual(stats.ok && stats.result, { kind: "json", value: { words: 3, loud: "ONE TWO THREE!", askedBy: "plat" } });
  });

  it("knot-tools run: a file through the real sandbox and loopback, one JSON line", () => {
    const dir = tempDir();
    const db = path.join(dir, "run.db");
    assert.equal(cli(["users", "add", "runner", "--db", db]).code, 0);
    assert.equal(cli(["grant", "runner", "plugin.demo.view_dashboard", "--db", db]).code, 0);
    const ok = cli(["run", path.join(USER_TOOLS, "echo-widgets.js"), "--user", "runner", "--args", '{"word":"cli"}', "--db", db], { cwd: dir });
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), { ok: true, result: { word: "cli", length: 3, by: "runner", method: "GET" }, resultKind: "json", log: [] });
    assert.equal(cli(["users", "add", "outsider", "--db", db]).code, 0);
    const denied = cli(["run", path.join(USER_TOOLS, "echo-widgets.js"), "--user", "outsider", "--db", db], { cwd: dir });
    assert.equal(denied.code, 1);
    assert.equal(JSON.parse(denied.stdout).error.code, "PERMISSION_DENIED");
  });

  it("knot-tools tools add: stores a file as a user's tool, a new version on re-add", () => {
    const dir = tempDir();
    const db = path.join(dir, "tools.db");
    cli(["users", "add", "writer", "--db", db]);
    const first = cli(["tools", "add", path.join(USER_TOOLS, "text-utils.js"), "--user", "writer", "--kind", "lib", "--share", "everyone", "--db", db]);
    assert.equal(first.code, 0, first.stderr);
    const again = cli(["tools", "add", path.join(USER_TOOLS, "text-utils.js"), "--user", "writer", "--db", db]);
    assert.equal(again.stdout, first.stdout, "same tool id");
    assert.equal(cli(["tools", "add", path.join(USER_TOOLS, "text-utils.js"), "--user", "writer", "--share", "friends", "--db", db]).code, 1);
  });
});
