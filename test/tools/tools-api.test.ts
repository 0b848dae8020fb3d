import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

const AUTHOR = "knot.tools.author";

describe("/api/tools: user tools in the store", () => {
  let t: TestApp;
  let alice: string, bob: string, carol: string, reader: string;
  let aliceTool: string;

  before(async () => {
    t = await startApp();
    alice = (await t.userWithToken("alice", { grants: [AUTHOR], groups: ["ops"] })).token;
    bob = (await t.userWithToken("bob", { grants: [AUTHOR], groups: ["ops"] })).token;
    carol = (await t.userWithToken("carol", { grants: [AUTHOR] })).token;
    reader = (await t.userWithToken("reader")).token;
  });
  after(() => t.close());

  const create = (token: string, body: Record<string, unknown>) => request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify(body) });

  it("creates a tool with parameters mapped like plugin tools, and returns lint diagnostics", async () => {
    const res = await create(alice, {
      name: "greet", description: "Greets", code: "export default (r) => `hi ${r.params.who}`;",
      parameters: [{ name: "who", type: "string", required: true, description: "Whom" }, { name: "times", type: "int", default: 1 }, { name: "pin", type: "string", secret: true }],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    aliceTool = res.body.tool.id;
    assert.equal(res.body.tool.version, 1);
    assert.equal(res.body.tool.sharing, "private");
    assert.equal(res.body.tool.kind, "tool");
    assert.deepEqual(res.body.diagnostics, []);
    assert.equal(res.body.tool.parameters[2].secret, true);
  });

  it("refuses bad names, unknown fields, bad parameters and duplicates with a named error", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "bad name", code: "" }, "name"],
      [{ name: "x", code: "", colour: "red" }, "colour"],
      [{ name: "x", code: "", kind: "macro" }, "kind"],
      [{ name: "x", code: "", sharing: "friends" }, "sharing"],
      [{ name: "x" }, "code"],
      [{ name: "x", code: "", parameters: [{ name: "n", type: "int", default: "one" }] }, "parameters[0].default"],
      [{ name: "x", code: "", parameters: [{ name: "n", type: "decimal" }] }, "parameters[0].type"],
    ];
    for (const [body, where] of cases) {
      const res = await create(alice, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, "INVALID_ARGUMENT");
      assert.ok(String(res.body.where).includes(where), `${res.body.where} should name ${where}`);
    }
    const dup = await create(alice, { name: "greet", code: "" });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, "CONFLICT");
  });

  it("writing tools needs knot.tools.author", async () => {
    const res = await create(reader, { name: "mine", code: "" });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "PERMISSION_DENIED");
  });

  it("one user cannot read or change another's private tool", async () => {
    for (const [method, body] of [["GET", undefined], ["PUT", JSON.stringify({ code: "x" })], ["DELETE", undefined]] as const) {
      const res = await request(`${t.url}/api/tools/${aliceTool}`, bob, { method, ...(body ? { body } : {}) });
      assert.equal(res.status, 404, method);
    }
    assert.equal((await request(`${t.url}/api/tools/${aliceTool}/versions`, bob)).status, 404);
    const list = await request(`${t.url}/api/tools`, bob);
    assert.ok(!list.body.tools.some((tool: { id: string }) => tool.id === aliceTool));
  });

  it("keeps every saved version; optimistic concurrency with expectedVersion", async () => {
    const v2 = await request(`${t.url}/api/tools/${aliceTool}`, alice, { method: "PUT", body: JSON.stringify({ code: "export default () => 'v2';", expectedVersion: 1 }) });
    assert.equal(v2.status, 200, JSON.stringify(v2.body));
    assert.equal(v2.body.tool.version, 2);
    const stale = await request(`${t.url}/api/tools/${aliceTool}`, alice, { method: "PUT", body: JSON.stringify({ code: "lost", expectedVersion: 1 }) });
    assert.equal(stale.status, 409);
    const versions = await request(`${t.url}/api/tools/${aliceTool}/versions`, alice);
    assert.deepEqual(versions.body.versions.map((v: { version: number }) => v.version), [2, 1]);
    const first = await request(`${t.url}/api/tools/${aliceTool}/versions/1`, alice);
    assert.match(first.body.version.tool.code, /hi \$\{r\.params\.who\}/);
  });

  it("sharing with a group or everyone makes a tool visible, read-only for others", async () => {
    const shared = await create(alice, { name: "ops_tool", code: "export default () => 1;", sharing: "@ops" });
    const id = shared.body.tool.id;
    assert.equal((await request(`${t.url}/api/tools/${id}`, bob)).status, 200, "bob is in ops");
    assert.equal((await request(`${t.url}/api/tools/${id}`, carol)).status, 404, "carol is not");
    const change = await request(`${t.url}/api/tools/${id}`, bob, { method: "PUT", body: JSON.stringify({ code: "hijack" }) });
    assert.equal(change.status, 403);
    await request(`${t.url}/api/tools/${id}`, alice, { method: "PUT", body: JSON.stringify({ sharing: "everyone" }) });
    assert.equal((await request(`${t.url}/api/tools/${id}`, carol)).status, 200);
    const list = await request(`${t.url}/api/tools`, carol);
    const entry = list.body.tools.find((tool: { id: string }) => tool.id === id);
    assert.equal(entry.mine, false);
    assert.equal(entry.code, undefined, "lists carry no code");
  });

  it("an inactive shared tool is hidden from others but not from its owner", async () => {
    const res = await create(alice, { name: "paused", code: "export default () => 1;", sharing: "everyone", active: false });
    const id = res.body.tool.id;
    assert.equal((await request(`${t.url}/api/tools/${id}`, carol)).status, 404);
    assert.equal((await request(`${t.url}/api/tools/${id}`, alice)).status, 200);
  });

  it("deletes a tool (owner only)", async () => {
    const res = await create(carol, { name: "temp", code: "export default () => 1;" });
    const id = res.body.tool.id;
    assert.equal((await request(`${t.url}/api/tools/${id}`, carol, { method: "DELETE" })).status, 200);
    assert.equal((await request(`${t.url}/api/tools/${id}`, carol)).status, 404);
  });

  it("check: syntax errors and disallowed imports come back with line and column", async () => {
    const check = (code: string, language = "js") => request(`${t.url}/api/tools/check`, alice, { method: "POST", body: JSON.stringify({ code, language }) });
    const syntax = await check("export default function () {\n  return (;\n}");
    assert.equal(syntax.body.diagnostics[0].code, "SYNTAX_ERROR");
    assert.equal(syntax.body.diagnostics[0].line, 2);
    assert.ok(syntax.body.diagnostics[0].column > 0);
    const imports = await check('import fs from "node:fs";\nimport { add } from "plugin:demo/calc";\nimport { Widgets } from "plugin:demo";\nexport default () => 1;');
    const byLine = Object.fromEntries(imports.body.diagnostics.map((d: { line: number; code: string }) => [d.line, d.code]));
    assert.deepEqual(byLine, { 1: "MODULE_NOT_ALLOWED", 2: "MODULE_NOT_ALLOWED" });
    const ts = await check("const n: number = 1;\nexport default (): number => n;", "ts");
    assert.deepEqual(ts.body.diagnostics, []);
  });
});
