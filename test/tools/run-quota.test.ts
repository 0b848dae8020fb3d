import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_QUOTAS } from "../../src/tools/quotas.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

describe("run quotas over HTTP", () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await startApp({ config: { quotas: { ...DEFAULT_QUOTAS, userRunsPerMinute: 2 } } });
    token = (await t.userWithToken("busy", { grants: ["knot.tools.author"] })).token;
  });
  after(() => t.close());

  it("answers 429 RATE_LIMITED with retry-after once a user's runs per minute are used up", async () => {
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
});
