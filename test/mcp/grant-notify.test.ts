import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, toolNames } from "./helpers.ts";

describe("grant changes reach connected MCP clients", () => {
  let t: TestApp;
  before(async () => {
    t = await startApp();
  });
  after(() => t.close());

  it("granting or revoking through the admin API sends list_changed, and the new listing follows", async () => {
    const admin = (await t.userWithToken("root", { admin: true })).token;
    const viewer = await t.userWithToken("viewer", { grants: ["knot.mcp"] });
    const { client } = await connect(t.url, viewer.token);
    try {
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
      assert.ok(!(await toolNames(client)).includes("export_metrics"));
      const subject = `user:${viewer.user.id}`;
      const granted = await request(`${t.url}/api/grants`, admin, { method: "POST", body: JSON.stringify({ subject, permission: "plugin.metrics.export" }) });
      assert.equal(granted.status, 201);
      for (let i = 0; i < 50 && changed === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(changed, 1);
      assert.ok((await toolNames(client)).includes("export_metrics"));
      const revoked = await request(`${t.url}/api/grants?subject=${encodeURIComponent(subject)}&permission=plugin.metrics.export`, admin, { method: "DELETE" });
      assert.equal(revoked.status, 200);
      for (let i = 0; i < 50 && changed === 1; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(changed, 2);
      assert.ok(!(await toolNames(client)).includes("export_metrics"));
    } finally {
      await client.close();
    }
  });
});
