/**
 * Attack: one author floods every user's tool listing (eighth round). Guarantees over the API and
 * MCP: an author keeps at most `quotas.user_tools` tools, libs and sinks (403 QUOTA_EXCEEDED,
 * nothing saved); listings (API, MCP tools/list) carry no code; a call of a listed shared tool
 * runs the code of the version its listing showed, loaded for that call alone.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_QUOTAS } from "../../src/tools/quotas.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { modernCall } from "../mcp/modern-client.ts";

const AUTHOR = ["knot.tools.author", "knot.mcp"];
const tool = (name: string, answer: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name, code: `export default () => ${JSON.stringify(answer)};\n/*${"x".repeat(100_000)}*/`, sharing: "everyone", ...extra });

describe("attack: one author floods every user's tool listing", () => {
  let t: TestApp;
  let mallory: string;
  let alice: string;

  before(async () => {
    t = await startApp({ config: { quotas: { ...DEFAULT_QUOTAS, userTools: 3 } } });
    mallory = (await t.userWithToken("mallory", { grants: AUTHOR })).token;
    alice = (await t.userWithToken("alice", { grants: AUTHOR })).token;
  });
  after(() => t.close());

  it("an author past quotas.user_tools gets 403 QUOTA_EXCEEDED and nothing is saved; deleting one makes room", async () => {
    const ids: string[] = [];
    for (const [i, kind] of (["tool", "lib", "tool"] as const).entries()) {
      const res = await request(`${t.url}/api/tools`, mallory, { method: "POST", body: tool(`flood_${i}`, `v1 ${i}`, { kind }) });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids.push(res.body.tool.id);
    }
    const refused = await request(`${t.url}/api/tools`, mallory, { method: "POST", body: tool("flood_3", "v1 3") });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "QUOTA_EXCEEDED", JSON.stringify(refused.body));
    assert.match(refused.body.error, /3 tools, libs and sinks.*quotas\.user_tools/);
    const listed = await request(`${t.url}/api/tools`, mallory);
    assert.deepEqual(listed.body.tools.map((x: { name: string }) => x.name), ["flood_0", "flood_1", "flood_2"]);
    // Over MCP too (the authoring tool saves through the same catalog).
    const viaMcp = await modernCall(t.url, mallory, "tools/call", { name: "save_user_tool", arguments: { name: "flood_4", code: "export default () => 1;" } });
    assert.equal(viaMcp.response.result?.isError, true, JSON.stringify(viaMcp.response));
    assert.match(JSON.stringify(viaMcp.response.result), /QUOTA_EXCEEDED/);

    assert.equal((await request(`${t.url}/api/tools/${ids[1]}`, mallory, { method: "DELETE" })).status, 200);
    assert.equal((await request(`${t.url}/api/tools`, mallory, { method: "POST", body: tool("flood_3", "v1 3") })).status, 201);
  });

  it("listings carry no code; a call runs the code of the version the caller's listing showed", async () => {
    const listed = await request(`${t.url}/api/tools`, alice);
    assert.ok(listed.body.tools.length >= 3);
    for (const entry of listed.body.tools) assert.equal("code" in entry, false, `${entry.name} listed with its code`);
    const mcpList = await modernCall(t.url, alice, "tools/list");
    assert.ok(mcpList.response.result.tools.some((x: { name: string }) => x.name === "mallory__flood_0"));
    assert.doesNotMatch(JSON.stringify(mcpList.response), /xxxxxxxxxx/, "no tool's code in tools/list");

    const first = await modernCall(t.url, alice, "tools/call", { name: "mallory__flood_0", arguments: {} });
    assert.match(JSON.stringify(first.response.result?.content), /v1 0/, JSON.stringify(first.response));
    // A single-tool read still has the code.
    const id = listed.body.tools.find((x: { name: string }) => x.name === "flood_0").id;
    assert.match((await request(`${t.url}/api/tools/${id}`, alice)).body.tool.code, /v1 0/);

    // Mallory saves a new version: alice's next call runs it (her listing moved with the store).
    assert.equal((await request(`${t.url}/api/tools/${id}`, mallory, { method: "PUT", body: tool("flood_0", "v2 0") })).status, 200);
    const second = await modernCall(t.url, alice, "tools/call", { name: "mallory__flood_0", arguments: {} });
    assert.match(JSON.stringify(second.response.result?.content), /v2 0/, JSON.stringify(second.response));
  });

  it("code is loaded for exactly the listed version; a version deleted with its tool is not in the history any more: NOT_FOUND", async () => {
    const alice = (await t.app.store.listUsers()).find((u) => u.name === "alice")!;
    const principal = { user: alice, groups: [], scopes: null, isAdmin: false } as never;
    const [listed] = (await t.app.catalog.list(principal)).filter((x) => x.name === "flood_2");
    assert.ok(listed && !("code" in listed));
    const mallory = (await t.app.store.listUsers()).find((u) => u.name === "mallory")!;
    await t.app.store.updateUserTool(listed.id, mallory.id, { ...(await t.app.store.getUserTool(listed.id))!, code: "export default () => 'v9';" });
    assert.match((await t.app.catalog.withCode(listed)).code, /v1 2/, "the listed version's code, not the newer one");
    await t.app.store.deleteUserTool(listed.id);
    const deleted = { ...listed, version: listed.version + 1 }; // a version never loaded before: no kept copy to serve
    await assert.rejects(t.app.catalog.withCode(deleted), (error: { code?: string }) => error.code === "NOT_FOUND");
  });
});
