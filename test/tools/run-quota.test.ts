import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_QUOTAS } from "../../src/tools/quotas.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect } from "../mcp/helpers.ts";

describe("run quotas over HTTP and MCP", () => {
  let t: TestApp;
  before(async () => {
    t = await startApp({ config: { quotas: { ...DEFAULT_QUOTAS, userRunsPerMinute: 2 } } });
  });
  after(() => t.close());

  it("answers 429 RATE_LIMITED with retry-after once a user's runs per minute are used up", async () => {
    const { token } = await t.userWithToken("busy", { grants: ["knot.tools.author"] });
    const run = () => request(`${t.url}/api/tools/run`, token, { method: "POST", body: JSON.stringify({ code: "export default () => 1;" }) });
    assert.equal((await run()).body.ok, true);
    assert.equal((await run()).body.ok, true);
    const refused = await run();
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, "RATE_LIMITED");
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    const audited = await t.app.store.queryAudit({ outcome: "RATE_LIMITED" });
    assert.equal(audited.length, 1, "refusals are audited too");
  });

  it("an MCP call over the quota is a tool error RATE_LIMITED with a retry-after", async () => {
    const { user, token } = await t.userWithToken("assistant-user", { grants: ["knot.mcp"] });
    await t.app.store.createUserTool(user.id, { name: "one", kind: "tool", description: "one", language: "js", parameters: [], code: "export default () => 1;", sharing: "private", active: true });
    const { client } = await connect(t.url, token);
    try {
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await client.callTool({ name: "one", arguments: {} }));
      assert.equal(results[0]!.isError ?? false, false);
      const refused = results[2]!;
      assert.equal(refused.isError, true);
      assert.equal((refused._meta as Record<string, unknown>)["knot-tools/errorCode"], "RATE_LIMITED");
      assert.ok(Number((refused._meta as Record<string, unknown>)["knot-tools/retryAfterSeconds"]) >= 1);
      assert.match(JSON.stringify(refused.content), /retry after \d+ s/);
    } finally {
      await client.close();
    }
  });
});
