/**
 * Boundary: values declared `secret` or `personal` never reach the audit log in clear, whatever
 * surface the call came through — a saved tool run over the API, the streamed run panel, a draft
 * run, a plugin handler reached over HTTP or over a user tool's loopback when the handler's MCP
 * tool declares the parameter secret, and MCP itself. Threat: an admin reading (or an attacker
 * stealing) the audit database learns passwords and personal data.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connect } from "../mcp/helpers.ts";
import { manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";

const PASSWORD = "hunter2-very-secret";
const EMAIL = "ann@example.test";

const TOOL = `import { getString } from "knot:tool";
import { call } from "knot:plugin";
export default async () => {
  const answer = await call("vault", "login", { user: getString("email"), password: getString("password") }, { method: "POST" });
  return { ok: answer.ok };
};`;

describe("secret and personal values are masked in the audit log on every surface", () => {
  let t: TestApp;
  let token: string;
  let toolId: string;

  before(async () => {
    const root = tempDir();
    writePlugin(root, "vault", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"

        [[tool.knot.handlers]]
        handler = "login"

        [[tool.knot.mcp_tools]]
        name = "vault_login"
        description = "Log in to the vault."
        handler = "login"

        [[tool.knot.mcp_tools.parameters]]
        name = "user"
        type = "string"
        personal = true

        [[tool.knot.mcp_tools.parameters]]
        name = "password"
        type = "string"
        secret = true
      `) + `export function login(request) { return { ok: request.params.password === ${JSON.stringify(PASSWORD)} }; }\n`,
    });
    t = await startApp({ pluginsDir: root });
    token = (await t.userWithToken("ann", { grants: ["knot.tools.author", "knot.mcp"] })).token;
    const parameters = [{ name: "email", type: "string", personal: true }, { name: "password", type: "string", secret: true }];
    const res = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "vault_check", code: TOOL, parameters }) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    toolId = res.body.tool.id;
  });
  after(() => t.close());

  const args = { email: EMAIL, password: PASSWORD };

  it("every surface answers (the calls really ran)", async () => {
    const saved = await request(`${t.url}/api/tools/${toolId}/run`, token, { method: "POST", body: JSON.stringify({ args }) });
    assert.deepEqual(saved.body.result, { ok: true }, JSON.stringify(saved.body));
    const draft = await request(`${t.url}/api/tools/run`, token, { method: "POST", body: JSON.stringify({ code: TOOL, args, parameters: [{ name: "password", type: "string", secret: true }, { name: "email", type: "string", personal: true }] }) });
    assert.deepEqual(draft.body.result, { ok: true }, JSON.stringify(draft.body));
    const stream = await fetch(`${t.url}/api/runs`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ toolId, args }) });
    assert.match(await stream.text(), /"type":"outcome","ok":true/);
    const http = await request(`${t.url}/plugins/vault/login`, token, { method: "POST", body: JSON.stringify({ user: EMAIL, password: PASSWORD }) });
    assert.deepEqual(http.body, { ok: true });
    const { client } = await connect(t.url, token);
    try {
      const mcp = await client.callTool({ name: "vault_login", arguments: { user: EMAIL, password: PASSWORD } });
      assert.deepEqual(mcp.structuredContent, { ok: true });
      const user = await client.callTool({ name: "vault_check", arguments: args });
      assert.deepEqual(user.structuredContent, { ok: true });
    } finally {
      await client.close();
    }
  });

  it("no audit row holds the raw values, yet each surface wrote its rows", async () => {
    const rows = await t.app.store.queryAudit({ limit: 1000 });
    const surfaces = new Set(rows.map((row) => `${row.surface}:${row.tool}`));
    for (const expected of ["api:user:ann/vault_check", "api:draft:draft", "http:vault/login", "loopback:vault/login", "mcp:vault_login", "mcp:user:ann/vault_check"]) {
      assert.ok(surfaces.has(expected), `a row for ${expected} (got ${[...surfaces].join(", ")})`);
    }
    const text = JSON.stringify(rows);
    assert.ok(!text.includes(PASSWORD), "no password in clear");
    assert.ok(!text.includes(EMAIL), "no e-mail address in clear");
    for (const row of rows.filter((r) => /^(user:ann\/)?vault/.test(r.tool))) {
      const masked = Object.values(row.args as Record<string, unknown>).filter((value) => typeof value === "string" && value.startsWith("masked:"));
      assert.equal(masked.length, 2, `${row.surface}:${row.tool} masks both values: ${JSON.stringify(row.args)}`);
    }
  });
});
