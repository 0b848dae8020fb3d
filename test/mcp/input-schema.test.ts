/**
 * Plugin tools with a raw `input_schema`: listed unchanged, arguments checked with its dialect
 * (2020-12 by default), and, for a 2026-07-28 client, `Mcp-Param-*` headers checked against the
 * body (400 / -32020 when they disagree) — but only on a tool the caller may see.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { manifest, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { connect } from "./helpers.ts";
import { modernCall } from "./modern-client.ts";

const SHAPED = JSON.stringify({
  type: "object",
  properties: { method: { enum: ["phone", "email"] }, phone: { type: "string" }, email: { type: "string" } },
  required: ["method"],
  if: { properties: { method: { const: "phone" } } },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
});

function writeRoutedPlugin(): string {
  const dir = tempDir("knot-input-schema-plugins-");
  writePlugin(dir, "routed", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["ops"]

      [[tool.knot.mcp_tools]]
      name = "regional"
      description = "Echoes its region and count."
      handler = "regional"
      read_only = true

      [tool.knot.mcp_tools.input_schema]
      type = "object"
      required = ["region"]
      properties.region = { type = "string", "x-mcp-header" = "Region" }
      properties.count = { type = "integer", "x-mcp-header" = "Count" }

      [[tool.knot.mcp_tools]]
      name = "ops_regional"
      description = "Same, for the ops group."
      handler = "regional"
      permission = "ops"
      read_only = true

      [tool.knot.mcp_tools.input_schema]
      type = "object"
      properties.region = { type = "string", "x-mcp-header" = "Region" }

      [[tool.knot.mcp_tools]]
      name = "contact"
      description = "Contact someone by phone or email."
      handler = "contact"
      read_only = true
      input_schema = '${SHAPED}'
    `) + `import { returnObject } from "knot:tool";
export function regional(request) { returnObject({ region: request.params.region, count: request.params.count ?? null }); }
export function contact(request) { returnObject(request.params); }
`,
  });
  return dir;
}

describe("raw input_schema on plugin tools", () => {
  let t: TestApp;
  let alice: string;

  before(async () => {
    t = await startApp({ pluginsDir: writeRoutedPlugin() });
    alice = (await t.userWithToken("alice", { grants: ["knot.mcp"] })).token;
  });
  after(() => t.close());

  test("the schema is listed unchanged; its if/then/else and additionalProperties are enforced as tool errors", async () => {
    const listed = await modernCall(t.url, alice, "tools/list");
    const contact = listed.response.result.tools.find((tool: { name: string }) => tool.name === "contact");
    assert.deepEqual(contact.inputSchema, JSON.parse(SHAPED));
    const ok = await modernCall(t.url, alice, "tools/call", { name: "contact", arguments: { method: "phone", phone: "123" } });
    assert.equal(ok.response.result.isError, undefined, JSON.stringify(ok.response));
    assert.deepEqual(ok.response.result.structuredContent, { method: "phone", phone: "123" });
    for (const args of [{ method: "phone", email: "a@b" }, { method: "email", email: "a@b", extra: 1 }]) {
      const refused = await modernCall(t.url, alice, "tools/call", { name: "contact", arguments: args });
      assert.equal(refused.status, 200);
      assert.equal(refused.response.result.isError, true, JSON.stringify(args));
      assert.match(refused.response.result.content[0].text, /contact/);
    }
  });

  test("2026-07-28: matching Mcp-Param headers (literal, Base64, numeric, surrounding spaces) are accepted", async () => {
    const cases: Array<[Record<string, unknown>, Record<string, string>]> = [
      [{ region: "eu-west" }, { "mcp-param-region": "eu-west" }],
      [{ region: "Zürich" }, { "mcp-param-region": `=?base64?${Buffer.from("Zürich").toString("base64")}?=` }],
      [{ region: "eu", count: 3 }, { "mcp-param-region": " eu ", "mcp-param-count": "3.0" }],
      // No body value: no header is needed, and one sent anyway is ignored.
      [{ region: "eu" }, { "mcp-param-region": "eu", "mcp-param-count": "9" }],
    ];
    for (const [args, headers] of cases) {
      const reply = await modernCall(t.url, alice, "tools/call", { name: "regional", arguments: args }, { headers });
      assert.equal(reply.status, 200, JSON.stringify(reply.response));
      assert.equal(reply.response.result.isError, undefined, JSON.stringify(reply.response));
      assert.equal(reply.response.result.structuredContent.region, args.region);
    }
  });

  test("2026-07-28: a missing, different or malformed Mcp-Param header is refused with 400 / -32020 before the tool runs", async () => {
    const cases: Array<[Record<string, unknown>, Record<string, string>, RegExp]> = [
      [{ region: "eu" }, {}, /Mcp-Param-Region header is missing/],
      [{ region: "eu" }, { "mcp-param-region": "us" }, /says "us"/],
      [{ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }, /not valid Base64/],
      [{ region: "eu", count: 3 }, { "mcp-param-region": "eu", "mcp-param-count": "4" }, /Mcp-Param-Count/],
    ];
    for (const [args, headers, message] of cases) {
      const reply = await modernCall(t.url, alice, "tools/call", { name: "regional", arguments: args }, { headers });
      assert.equal(reply.status, 400, JSON.stringify(headers));
      assert.equal(reply.response?.error?.code ?? reply.messages[0]?.error?.code, -32020);
      assert.match(reply.messages[0].error.message, message);
    }
  });

  test("a tool hidden from the caller is not checked: the answer is the usual unknown tool, not a 400", async () => {
    const reply = await modernCall(t.url, alice, "tools/call", { name: "ops_regional", arguments: { region: "eu" } });
    assert.notEqual(reply.status, 400);
    assert.match(JSON.stringify(reply.response), /Unknown tool: ops_regional/);
  });

  test("2025-11-25 clients send no Mcp-Param headers and are not asked to", async () => {
    const { client } = await connect(t.url, alice);
    try {
      const result = await client.callTool({ name: "regional", arguments: { region: "eu", count: 2 } });
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.deepEqual(result.structuredContent, { region: "eu", count: 2 });
    } finally {
      await client.close();
    }
  });
});
