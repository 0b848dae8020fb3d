/** The hosted-client flow end to end over real HTTP, with the real MCP SDK client's OAuth. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { toolNames, writeMcpPlugins } from "../mcp/helpers.ts";
import { connectOverOAuth } from "./helpers.ts";

let t: TestApp;
let person: { token: string };

before(async () => {
  const plugins = writeMcpPlugins();
  t = await startApp({ pluginsDir: plugins.dir, config: { plugins: { tools: { marker: plugins.marker } } } });
  person = await t.userWithToken("olga", { grants: ["knot.mcp", "plugin.tools.ops", "knot.tools.author"] });
});
after(() => t.close());

test("a hosted client connects: discovery from the 401, registration, PKCE, consent, tools/list with the lent scopes", async () => {
  const { client, oauth, callback } = await connectOverOAuth(t.url, person.token, { permissions: ["plugin.tools.*"], userTools: false, write: false, expiresInDays: 7 });
  assert.equal(callback.origin + callback.pathname, "http://127.0.0.1:9/callback");
  assert.ok(oauth.saved?.access_token && oauth.saved.refresh_token);
  const names = await toolNames(client);
  assert.ok(names.includes("ops_report"), names.join());
  assert.ok(!names.includes("list_user_tools"), "user tools were not lent");
  await client.close();
});
