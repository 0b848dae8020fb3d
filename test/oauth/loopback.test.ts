/** A connection's scopes narrow the loopback calls of the user tools it runs, as any scoped token's do. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { saveUserTool } from "../mcp/helpers.ts";
import { connectOverOAuth } from "./helpers.ts";

let t: TestApp;
let carol: { user: { id: string }; token: string };

before(async () => {
  t = await startApp();
  carol = await t.userWithToken("carol", { grants: ["knot.mcp", "plugin.demo.view_dashboard"] });
  await saveUserTool(t, carol.user.id, { name: "via_loopback", code: `import { call } from "knot:plugin";\nimport { returnObject } from "knot:tool";\nexport default async function () { returnObject(await call("demo", "echo_word", { word: "w" })); }` });
});
after(() => t.close());

test("the demo area lent: the user tool's loopback call succeeds; not lent: PERMISSION_DENIED inside the run", { timeout: 60_000 }, async () => {
  const wide = await connectOverOAuth(t.url, carol.token, { permissions: ["plugin.demo.*"], userTools: true, write: false, expiresInDays: 1 });
  const ok = await wide.client.callTool({ name: "via_loopback", arguments: {} });
  assert.equal(ok.isError, undefined, JSON.stringify(ok));
  assert.equal((ok.structuredContent as { by?: string }).by, "carol");
  const narrow = await connectOverOAuth(t.url, carol.token, { permissions: [], userTools: true, write: false, expiresInDays: 1 });
  const refused = await narrow.client.callTool({ name: "via_loopback", arguments: {} });
  assert.equal(refused.isError, true);
  assert.equal((refused._meta as Record<string, unknown>)["knot-tools/errorCode"], "PERMISSION_DENIED");
  await Promise.all([wide.client.close(), narrow.client.close()]);
});
