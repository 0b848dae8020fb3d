/**
 * A tools/call that names no tool (params missing or not an object, name missing or not a string)
 * gets a JSON-RPC invalid-params error in a sentence naming the field, in both revisions and over
 * stdio, instead of the SDK's schema-library dump; over HTTP the refusal is audited.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { INITIALIZE, postMcp, stdioClient } from "./helpers.ts";

const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const BAD: ReadonlyArray<readonly [string, unknown, string]> = [
  ["no params", undefined, "params"],
  ["params a string", "echo_word", "params"],
  ["no name", { arguments: {} }, "params.name"],
  ["a number for a name", { name: 42, arguments: {} }, "params.name"],
  ["an empty name", { name: "", arguments: {} }, "params.name"],
];

describe("a tools/call that names no tool gets a clear invalid-params error", () => {
  let t: TestApp;
  let token: string;
  let userId: string;
  before(async () => {
    t = await startApp();
    ({ token, user: { id: userId } } = await t.userWithToken("caller", { grants: ["knot.mcp"] }));
  });
  after(() => t.close());

  const assertClear = (json: any, where: string, what: string) => {
    assert.equal(json?.error?.code, -32602, `${what}: ${JSON.stringify(json)}`);
    assert.match(json.error.message, new RegExp(`^Invalid params: ${where.replace(".", "\\.")} must be`), what);
    assert.doesNotMatch(json.error.message, /"expected"|invalid_type/, `${what}: no schema-library dump`);
  };

  it("2026-07-28, audited", async () => {
    const before = (await t.app.store.queryAudit({ userId, limit: 100 })).length;
    for (const [what, params, where] of BAD) {
      const withMeta = typeof params === "object" && params !== null ? { ...params, _meta: META } : params;
      const res = await postMcp(t.url, { jsonrpc: "2.0", id: 3, method: "tools/call", ...(withMeta === undefined ? { params: { _meta: META } } : { params: withMeta }) }, {
        authorization: `Bearer ${token}`, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
      });
      assert.ok(res.status < 500, `${what}: ${res.status}`);
      if (params === undefined || typeof params === "string") continue; // no _meta envelope possible: a 2025 message then
      assertClear(res.json, where, what);
      assert.equal(res.json.id, 3);
    }
    const rows = await t.app.store.queryAudit({ userId, limit: 100 });
    assert.ok(rows.length > before, "the refusals are audited");
    assert.ok(rows.slice(0, rows.length - before).every((row) => row.outcome === "INVALID_ARGUMENT"));
  });

  it("2025-11-25 sessions", async () => {
    const init = await postMcp(t.url, INITIALIZE, { authorization: `Bearer ${token}` });
    const session = { authorization: `Bearer ${token}`, "mcp-session-id": init.headers.get("mcp-session-id")! };
    await postMcp(t.url, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
    for (const [what, params, where] of BAD) {
      const res = await postMcp(t.url, { jsonrpc: "2.0", id: 4, method: "tools/call", ...(params === undefined ? {} : { params }) }, session);
      assertClear(res.json, where, what);
    }
  });

  it("stdio", async () => {
    const { client, close } = await stdioClient(t, userId);
    try {
      for (const [what, params, where] of BAD.filter(([, params]) => typeof params === "object")) {
        const error = await client.request({ method: "tools/call", params: params as never }, {} as never).then(() => null, (caught: Error) => caught);
        assert.ok(error, what);
        assert.match(error.message, new RegExp(`${where.replace(".", "\\.")} must be`), what);
        assert.doesNotMatch(error.message, /"expected"|invalid_type/, what);
      }
    } finally {
      await close();
    }
  });
});
