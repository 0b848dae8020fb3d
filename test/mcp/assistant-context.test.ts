/**
 * `request.assistant` and `area`: a handler called through MCP sees the MCP client and the OAuth
 * connection (null outside MCP, inherited by the handlers it `call()`s); handlers and tools
 * tagged with an `area` are grouped on `GET /api/plugins` and on the consent screen, where a group
 * can be lent as a whole.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { authorizeUrl, Browser, connectOverOAuth, pkcePair, registerClient } from "../oauth/helpers.ts";
import { connect, saveUserTool } from "./helpers.ts";

let t: TestApp;
let person: { token: string };

before(async () => {
  const root = tempDir();
  writePlugin(root, "crm", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      description = "Contacts."
      permissions = ["edit"]
      [[tool.knot.handlers]]
      handler = "who"
      area = "people"
      [[tool.knot.handlers]]
      handler = "inner"
      [[tool.knot.handlers]]
      handler = "rename"
      permission = "edit"
      write = true
      area = "content"
      [[tool.knot.mcp_tools]]
      name = "who_am_i"
      description = "Who is asking."
      handler = "who"
      [[tool.knot.mcp_tools]]
      name = "rename_page"
      description = "Rename a page."
      handler = "rename"
      permission = "edit"
      write = true
      [[tool.knot.mcp_tools]]
      name = "nested_who"
      description = "Asks inner through call()."
      handler = "nested"
      area = "people"
    `) + `import { call } from "knot:plugin";
export function who(request) { return { assistant: request.assistant }; }
export function inner(request) { return { assistant: request.assistant }; }
export function rename() { return "renamed"; }
export async function nested() { return call("crm", "inner", {}); }
`,
  });
  t = await startApp({ pluginsDir: root });
  person = await t.userWithToken("olga", { grants: ["knot.mcp", "plugin.crm.edit"] });
});
after(() => t.close());

test("through MCP a handler sees the client (and no connection for a plain token); a call() it makes inherits it", async () => {
  const { client } = await connect(t.url, person.token, "desk-assistant");
  try {
    const direct = await client.callTool({ name: "who_am_i", arguments: {} });
    assert.deepEqual(direct.structuredContent, { assistant: { client: "desk-assistant/9.8.7", connection: null } });
    const nested = await client.callTool({ name: "nested_who", arguments: {} });
    assert.deepEqual(nested.structuredContent, { assistant: { client: "desk-assistant/9.8.7", connection: null } });
  } finally {
    await client.close();
  }
});

test("a user tool called through MCP passes the assistant on to the handlers it calls over the loopback; run over HTTP, null", async () => {
  const owner = await t.user("ivo", { grants: ["knot.mcp"] });
  const token = await t.token(owner);
  const saved = await saveUserTool(t, owner.id, {
    name: "ask_who",
    code: `import { call } from "knot:plugin";\nimport { returnObject } from "knot:tool";\nexport default async function () { returnObject(await call("crm", "who", { assistant: { client: "forged-by-the-tool", connection: "root" } })); }`,
  });
  const { client } = await connect(t.url, token, "desk-assistant");
  try {
    const viaMcp = await client.callTool({ name: "ask_who", arguments: {} });
    // The tool's own `assistant` param is only a param: request.assistant is the server's.
    assert.deepEqual(viaMcp.structuredContent, { assistant: { client: "desk-assistant/9.8.7", connection: null } });
  } finally {
    await client.close();
  }
  const viaHttp = await request(`${t.url}/api/tools/${saved.id}/run`, token, { method: "POST", body: "{}" });
  assert.equal(viaHttp.status, 200, JSON.stringify(viaHttp.body));
  assert.deepEqual(viaHttp.body.result, { assistant: null });
});

test("outside MCP request.assistant is null, and a caller cannot set it through params", async () => {
  const http = await request(`${t.url}/plugins/crm/who`, person.token);
  assert.deepEqual(http.body, { assistant: null });
  const forged = await request(`${t.url}/plugins/crm/who?assistant=x`, person.token, { method: "POST", body: JSON.stringify({ assistant: { client: "admin-console", connection: "root" } }) });
  assert.deepEqual(forged.body, { assistant: null });
  const { client } = await connect(t.url, person.token);
  try {
    const viaArgs = await client.callTool({ name: "who_am_i", arguments: { assistant: { client: "forged" } } });
    assert.equal((viaArgs.structuredContent as any).assistant.client, "knot-test-client/9.8.7", "arguments never become request.assistant");
  } finally {
    await client.close();
  }
});

test("through an OAuth connection the handler also sees the connection's client name", async () => {
  const { client } = await connectOverOAuth(t.url, person.token, { permissions: ["plugin.crm.*"], userTools: false, write: false, expiresInDays: 1 });
  try {
    const res = await client.callTool({ name: "who_am_i", arguments: {} });
    const assistant = (res.structuredContent as any).assistant;
    assert.equal(assistant.client, "hosted-client/1.0.0");
    assert.match(assistant.connection, /^Test Assistant/);
  } finally {
    await client.close();
  }
});

test("GET /api/plugins groups handlers and tools by area (a tool without its own area takes its handler's)", async () => {
  const admin = (await t.userWithToken("root", { admin: true })).token;
  const res = await request(`${t.url}/api/plugins`, admin);
  const crm = res.body.loaded.find((p: any) => p.name === "crm");
  assert.deepEqual(crm.areas, [
    { area: "content", handlers: ["rename"], mcpTools: ["rename_page"], write: true },
    { area: "people", handlers: ["who"], mcpTools: ["who_am_i", "nested_who"], write: false },
  ]);
  assert.equal(crm.mcpTools.find((tool: any) => tool.name === "who_am_i").area, "people");
});

test("the consent screen groups by area; lending an area lends exactly its targets", async () => {
  const browser = new Browser(t.url);
  await browser.signIn(person.token);
  const registered = (await registerClient(t.url)).body;
  const interaction = await browser.openAuthorization(authorizeUrl(t.url, { client_id: registered.client_id, code_challenge: pkcePair().challenge }));
  const details = await (await browser.fetch(`${interaction}/details`)).json() as any;
  const crm = details.areas.find((area: any) => area.plugin === "crm");
  assert.deepEqual(crm.groups.map((g: any) => [g.id, g.mcpTools, g.write]), [["area:crm:content", ["rename_page"], true], ["area:crm:people", ["who_am_i", "nested_who"], false]]);
  const { client, connectionId } = await connectOverOAuth(t.url, person.token, { permissions: ["area:crm:people"], userTools: false, write: false, expiresInDays: 1 });
  try {
    const boot = new Set(["execute_tool", "tool_search"]);
    const names = (await client.listTools()).tools.map((tool) => tool.name).filter((name) => !boot.has(name)).sort();
    assert.deepEqual(names, ["nested_who", "who_am_i"], "only the people area was lent");
  } finally {
    await client.close();
  }
  const connection = (await t.app.store.listTokens()).find((token) => token.id === connectionId);
  assert.deepEqual(connection?.scopes, { permissions: ["knot.mcp", "plugin.crm.who", "plugin.crm.who_am_i", "plugin.crm.nested_who"], write: false });
  // An area group of another plugin, or a made-up one, is refused.
  await assert.rejects(connectOverOAuth(t.url, person.token, { permissions: ["area:crm:secret"], userTools: false, write: false, expiresInDays: 1 }), /not one of your permissions or areas/);
});

test("area must be a short lowercase name: a bad one fails the plugin naming the key", async () => {
  const root = tempDir();
  writePlugin(root, "bad", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      [[tool.knot.handlers]]
      handler = "a"
      area = "Content Area"
    `) + "export function a() {}\n",
  });
  const other = await startApp({ pluginsDir: root });
  try {
    const failed = other.app.pool.registry.failed[0];
    assert.match(failed?.reason ?? "", /tool\.knot\.handlers\[0\]\.area must be an area name/);
  } finally {
    await other.close();
  }
});
