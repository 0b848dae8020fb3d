/**
 * Object and list parameters end to end: a plugin MCP tool and a user tool declaring nested
 * members get a nested schema, arguments are checked by ajv (defaults filled inside objects and
 * list elements, a missing nested member named by its path), and nested secret/personal values
 * are masked in the audit log on MCP, HTTP and API runs.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connect } from "../mcp/helpers.ts";
import { manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";

const PHONE = "+44-555-0100";
const TOKEN = "tok-very-secret-1";

const USER_TOOL = "export default (request) => request.params;";

const USER_PARAMETERS = [
  { name: "contact", type: "object", required: true, properties: [{ name: "phone", required: true, personal: true }, { name: "kind", enum: ["home", "work"], default: "home" }] },
  { name: "keys", type: "list", items: { type: "object", properties: [{ name: "token", secret: true }, { name: "uses", type: "int", default: 1 }] } },
];

describe("object and list parameters", () => {
  let t: TestApp;
  let token: string;
  let toolId: string;

  before(async () => {
    const root = tempDir();
    writePlugin(root, "crm", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"
        [[tool.knot.handlers]]
        handler = "call_contact"
        [[tool.knot.mcp_tools]]
        name = "call_contact"
        description = "Call someone."
        handler = "call_contact"
        [[tool.knot.mcp_tools.parameters]]
        name = "contact"
        type = "object"
        required = true
        [[tool.knot.mcp_tools.parameters.properties]]
        name = "phone"
        required = true
        personal = true
        [[tool.knot.mcp_tools.parameters.properties]]
        name = "kind"
        enum = ["home", "work"]
        default = "home"
        [[tool.knot.mcp_tools.parameters]]
        name = "keys"
        type = "list"
        items = { type = "object", properties = [{ name = "token", secret = true }, { name = "uses", type = "int", default = 1 }] }
      `) + "export function call_contact(request) { return { params: request.params }; }\n",
    });
    t = await startApp({ pluginsDir: root });
    token = (await t.userWithToken("ann", { grants: ["knot.tools.author", "knot.mcp"] })).token;
    const res = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "echo_args", code: USER_TOOL, parameters: USER_PARAMETERS }) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    toolId = res.body.tool.id;
    assert.deepEqual(res.body.tool.parameters[1].items.properties[0], { name: "token", type: "string", description: "", secret: true, personal: false, required: false });
  });
  after(() => t.close());

  it("MCP lists the nested schema and checks arguments with defaults filled at every level", async () => {
    const { client } = await connect(t.url, token);
    try {
      const tools = (await client.listTools()).tools;
      for (const name of ["call_contact", "echo_args"]) {
        const schema = tools.find((tool) => tool.name === name)!.inputSchema as any;
        assert.deepEqual(schema.properties.contact.required, ["phone"], name);
        assert.deepEqual(schema.properties.keys.items.properties.uses, { type: "integer", default: 1 }, name);
      }
      const args = { contact: { phone: PHONE }, keys: [{ token: TOKEN }, { token: TOKEN, uses: 3 }] };
      const plugin = await client.callTool({ name: "call_contact", arguments: args });
      assert.deepEqual((plugin.structuredContent as any).params, { contact: { phone: PHONE, kind: "home" }, keys: [{ token: TOKEN, uses: 1 }, { token: TOKEN, uses: 3 }] });
      const user = await client.callTool({ name: "echo_args", arguments: args });
      const { contact, keys } = user.structuredContent as any;
      assert.deepEqual({ contact, keys }, { contact: { phone: PHONE, kind: "home" }, keys: [{ token: TOKEN, uses: 1 }, { token: TOKEN, uses: 3 }] }, JSON.stringify(user));
      for (const name of ["call_contact", "echo_args"]) {
        const missing = await client.callTool({ name, arguments: { contact: {} } });
        assert.equal(missing.isError, true);
        assert.match(JSON.stringify(missing.content), /argument \\"contact.phone\\" of \\"(call_contact|echo_args)\\" is required/, name);
        const wrongItem = await client.callTool({ name, arguments: { contact: { phone: "1" }, keys: [{}, { uses: "many" }] } });
        assert.match(JSON.stringify(wrongItem.content), /argument \\"keys\[1\].uses\\"/, name);
        const badEnum = await client.callTool({ name, arguments: { contact: { phone: "1", kind: "mobile" } } });
        assert.match(JSON.stringify(badEnum.content), /argument \\"contact.kind\\"/, name);
      }
    } finally {
      await client.close();
    }
  });

  it("an API run of the user tool validates the same way", async () => {
    const ok = await request(`${t.url}/api/tools/${toolId}/run`, token, { method: "POST", body: JSON.stringify({ args: { contact: { phone: PHONE } } }) });
    assert.deepEqual(ok.body.result, { contact: { phone: PHONE, kind: "home" } }, JSON.stringify(ok.body));
    const bad = await request(`${t.url}/api/tools/${toolId}/run`, token, { method: "POST", body: JSON.stringify({ args: { contact: { kind: "work" } } }) });
    assert.equal(bad.body.error?.code ?? bad.body.code, "INVALID_ARGUMENT", JSON.stringify(bad.body));
    assert.match(JSON.stringify(bad.body), /contact\.phone/);
    const http = await request(`${t.url}/plugins/crm/call_contact`, token, { method: "POST", body: JSON.stringify({ contact: { phone: PHONE }, keys: [{ token: TOKEN }] }) });
    assert.equal(http.status, 200);
  });

  it("nested secret and personal values are masked in every row, the rest stays readable", async () => {
    const rows = (await t.app.store.queryAudit({ limit: 1000 })).filter((row) => row.tool === "call_contact" || row.tool === "echo_args" || row.tool === "crm/call_contact");
    assert.ok(rows.length >= 5, `rows: ${rows.map((r) => `${r.surface}:${r.tool}`).join(", ")}`);
    const text = JSON.stringify(rows);
    assert.ok(!text.includes(PHONE), "no phone number in clear");
    assert.ok(!text.includes(TOKEN), "no token in clear");
    const ok = rows.find((row) => row.surface === "mcp" && row.tool === "call_contact" && row.outcome === "ok")!;
    const args = ok.args as any;
    assert.match(args.contact.phone, /^masked:/);
    assert.match(args.keys[0].token, /^masked:/);
    assert.equal(args.keys[1].uses, 3, "undeclared-secret members stay readable");
    const http = rows.find((row) => row.surface === "http")!;
    assert.match((http.args as any).contact.phone, /^masked:/);
  });

  it("execute_tool masks the nested secrets of the tool it runs", async () => {
    const { client } = await connect(t.url, token);
    try {
      await client.callTool({ name: "execute_tool", arguments: { name: "call_contact", arguments: { contact: { phone: PHONE }, keys: [{ token: TOKEN, uses: 2 }] } } });
    } finally {
      await client.close();
    }
    const rows = await t.app.store.queryAudit({ tool: "execute_tool" });
    assert.ok(rows.length > 0);
    const args = rows[0]!.args as any;
    assert.match(args.arguments.contact.phone, /^masked:/);
    assert.match(args.arguments.keys[0].token, /^masked:/);
    assert.equal(args.arguments.keys[0].uses, 2);
    assert.ok(!JSON.stringify(rows).includes(PHONE) && !JSON.stringify(rows).includes(TOKEN));
  });

  it("a value that does not have the declared shape is masked whole (fail closed)", async () => {
    const { client } = await connect(t.url, token);
    try {
      await client.callTool({ name: "call_contact", arguments: { contact: PHONE } });
    } finally {
      await client.close();
    }
    const rows = await t.app.store.queryAudit({ tool: "call_contact" });
    const refused = rows.find((row) => row.outcome !== "ok" && typeof (row.args as any).contact === "string")!;
    assert.match((refused.args as any).contact, /^masked:/);
  });
});
