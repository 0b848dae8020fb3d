/**
 * Issue 10 items 5 and 6, attacked on every seam that reaches plugin code: a token's scopes and
 * its read-only flag must decide the same way for HTTP dispatch, a user tool's loopback, the
 * in-process `call()` of plugin code, MCP tools (direct and through execute_tool) and plugin pages.
 * Each refusal is checked to happen before the target's code ran (a marker file stays unchanged).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { hashSecret } from "../../src/auth/secrets.ts";
import type { KnotError } from "../../src/errors.ts";
import { cli } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS, manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { connect } from "../mcp/helpers.ts";

function writeFixtures(): { dir: string; marker: string } {
  const dir = tempDir("knot-scopes-");
  const marker = path.join(dir, "ran.log");
  fs.writeFileSync(marker, "");
  writePlugin(dir, "alpha", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"
      permissions = ["sum", "change"]
      config = ["marker"]

      [[tool.knot.handlers]]
      handler = "whoami"

      [[tool.knot.handlers]]
      handler = "save"
      permission = "change"
      write = true

      [[tool.knot.handlers]]
      handler = "wipe"
      permission = "change"
      destructive = true

      [[tool.knot.handlers]]
      handler = "relay"

      [[tool.knot.mcp_tools]]
      name = "alpha_sum"
      description = "Adds numbers."
      handler = "sum"
      permission = "sum"
      read_only = true

      [[tool.knot.mcp_tools]]
      name = "alpha_save"
      description = "Saves something."
      handler = "save"
      permission = "change"
      write = true

      [[tool.knot.pages]]
      path = "/status"
      handler = "status_page"
      label = "Alpha status"
    `) + `
import fs from "node:fs";
import { call } from "knot:plugin";
const mark = (request, what) => fs.appendFileSync(request.config.marker, what + "\\n");
export function whoami(request) { mark(request, "whoami"); return { by: request.user.name }; }
export function save(request) { mark(request, "save"); return { saved: true }; }
export function wipe(request) { mark(request, "wipe"); return { wiped: true }; }
export function sum(request) { mark(request, "sum"); return 3; }
export function status_page(request) { mark(request, "status_page"); return "# ok"; }
/** Ungated and read-only itself, it calls another handler in process, as the same caller. */
export async function relay(request) { return call(request.params.plugin ?? "alpha", request.params.fn ?? "whoami", {}, { method: "POST" }); }
`,
  });
  writePlugin(dir, "metrics", {
    "main.js": manifest(`
      [tool.knot]
      version = "1.0.0"

      [[tool.knot.handlers]]
      handler = "ping"

      [[tool.knot.handlers]]
      handler = "relay"

      [[tool.knot.mcp_tools]]
      name = "metrics_ping"
      description = "Pings."
      handler = "ping"
      read_only = true
    `) + `
import { call } from "knot:plugin";
export function ping() { return "pong"; }
export async function relay(request) { return call(request.params.plugin ?? "alpha", request.params.fn ?? "whoami", {}, { method: "POST" }); }
`,
  });
  return { dir, marker };
}

const CALLER = `import { call } from "knot:plugin";
export default async (r) => {
  try { return { ok: await call(r.params.plugin, r.params.fn, {}, { method: "POST" }) }; }
  catch (e) { return { code: e.code, message: e.message }; }
};`;

describe("scopes and read-only tokens: one gate on every path to a handler", () => {
  let t: TestApp;
  let marker: string;
  let toolId: string;
  const tokens: Record<string, string> = {};
  const clients: Client[] = [];
  const ran = () => fs.readFileSync(marker, "utf8").split("\n").filter(Boolean);

  before(async () => {
    const fixtures = writeFixtures();
    marker = fixtures.marker;
    t = await startApp({ pluginsDir: fixtures.dir, config: { plugins: { alpha: { marker } } } });
    assert.deepEqual(t.app.pool.registry.failed, [], "the fixture plugins load");
    const bob = await t.user("bob", { grants: ["knot.mcp", "knot.tools.author", "plugin.alpha.sum", "plugin.alpha.change"] });
    tokens.bob = await t.token(bob);
    tokens.metricsOnly = await t.token(bob, { permissions: ["knot.mcp", "knot.tools.run", "plugin.metrics.*"], write: true });
    tokens.whoamiOnly = await t.token(bob, { permissions: ["plugin.alpha.whoami", "plugin.metrics.relay"], write: true });
    tokens.readOnly = await t.token(bob, { permissions: ["*"], write: false });
    tokens.changeScope = await t.token(bob, { permissions: ["plugin.alpha.change"], write: true });
    const root = await t.user("root", { admin: true });
    tokens.root = await t.token(root);
    tokens.rootReadOnly = await t.token(root, { permissions: ["*"], write: false });
    const saved = await request(`${t.url}/api/tools`, tokens.bob, { method: "POST", body: JSON.stringify({ name: "caller", code: CALLER, parameters: [{ name: "plugin" }, { name: "fn" }] }) });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    toolId = saved.body.tool.id;
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  const http = (token: string, route: string, method = "POST") => request(`${t.url}${route}`, token, { method, ...(method === "GET" ? {} : { body: "{}" }) });
  const runCaller = async (token: string, plugin: string, fn: string) => {
    const res = await request(`${t.url}/api/tools/${toolId}/run`, token, { method: "POST", body: JSON.stringify({ args: { plugin, fn } }) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    return res.body.result as { ok?: unknown; code?: string; message?: string };
  };
  const mcp = async (token: string) => {
    const { client } = await connect(t.url, token);
    clients.push(client);
    return client;
  };

  describe("item 5: a scoped token reaches a handler only if its scopes cover plugin.<p>.<h> or the handler's permission", () => {
    it("HTTP: a token scoped to plugin.metrics.* is refused an ungated alpha handler, before it runs", async () => {
      const before = ran().length;
      const res = await http(tokens.metricsOnly!, "/plugins/alpha/whoami", "GET");
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.code, "PERMISSION_DENIED");
      assert.match(res.body.error, /scopes/);
      assert.equal(ran().length, before, "whoami did not run");
      assert.equal((await http(tokens.metricsOnly!, "/plugins/metrics/ping", "GET")).status, 200, "its own scope still works");
    });

    it("HTTP: a scope naming the handler itself or its permission is enough; anything else is not", async () => {
      assert.equal((await http(tokens.whoamiOnly!, "/plugins/alpha/whoami")).status, 200);
      assert.equal((await http(tokens.whoamiOnly!, "/plugins/alpha/save")).status, 403);
      assert.equal((await http(tokens.changeScope!, "/plugins/alpha/save")).status, 200, "the handler's permission in scope");
      assert.equal((await http(tokens.changeScope!, "/plugins/alpha/whoami")).status, 403);
    });

    it("loopback: a user tool run with the metrics-scoped token cannot call alpha either", async () => {
      const before = ran().length;
      const refused = await runCaller(tokens.metricsOnly!, "alpha", "whoami");
      assert.equal(refused.code, "PERMISSION_DENIED", JSON.stringify(refused));
      assert.equal(ran().length, before);
      assert.deepEqual(await runCaller(tokens.metricsOnly!, "metrics", "ping"), { ok: "pong" });
    });

    it("in-process call(): plugin code calling another handler is gated by the same scopes", async () => {
      const before = ran().length;
      const res = await http(tokens.metricsOnly!, "/plugins/metrics/relay?fn=whoami");
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.code, "PERMISSION_DENIED");
      assert.equal(ran().length, before);
      const principal = (await t.app.auth.authenticate({ bearer: tokens.metricsOnly!, remoteAddress: "127.0.0.1", route: "plugin" }))!;
      await assert.rejects(t.app.pool.call(principal, "alpha", "whoami", {}, {}), (e: KnotError) => e.code === "PERMISSION_DENIED");
      assert.equal((await http(tokens.whoamiOnly!, "/plugins/metrics/relay?fn=whoami")).status, 200, "both handlers in scope");
    });

    it("MCP: the same token lists and calls metrics tools only", async () => {
      const client = await mcp(tokens.metricsOnly!);
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).filter((n) => !["tool_search", "execute_tool"].includes(n)), ["caller", "metrics_ping"], "boot tools, its own user tool (knot.tools.run is in scope), metrics tools");
      await assert.rejects(client.callTool({ name: "alpha_sum", arguments: {} }), (e: any) => e.code === -32602);
      await assert.rejects(client.callTool({ name: "execute_tool", arguments: { name: "alpha_sum" } }), (e: any) => e.code === -32602);
    });

    it("pages: an ungated page of another plugin is neither listed nor rendered for the scoped token", async () => {
      const before = ran().length;
      const pages = await http(tokens.metricsOnly!, "/api/pages", "GET");
      assert.equal(pages.status, 200);
      assert.deepEqual(pages.body.pages, []);
      assert.equal((await http(tokens.metricsOnly!, "/api/pages/alpha/status", "GET")).status, 403);
      assert.equal(ran().length, before);
      const unscoped = await http(tokens.bob!, "/api/pages", "GET");
      assert.deepEqual(unscoped.body.pages.map((p: { path: string }) => p.path), ["/status"]);
    });
  });

  describe("item 6: read-only tokens are refused write and destructive handlers on every path", () => {
    for (const who of ["readOnly", "rootReadOnly"]) {
      it(`HTTP (${who}): 403 PERMISSION_DENIED naming the read-only token, before the handler runs`, async () => {
        const before = ran().length;
        for (const fn of ["save", "wipe"]) {
          const res = await http(tokens[who]!, `/plugins/alpha/${fn}`);
          assert.equal(res.status, 403, `${fn}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, "PERMISSION_DENIED");
          assert.match(res.body.error, /read-only token/);
        }
        assert.equal(ran().length, before, "neither handler ran");
        assert.equal((await http(tokens[who]!, "/plugins/alpha/whoami")).status, 200, "read handlers still work");
      });
    }

    it("loopback: a user tool run with a read-only token gets PERMISSION_DENIED naming the read-only token", async () => {
      const before = ran().length;
      const refused = await runCaller(tokens.readOnly!, "alpha", "save");
      assert.equal(refused.code, "PERMISSION_DENIED", JSON.stringify(refused));
      assert.match(refused.message ?? "", /read-only token/);
      assert.equal(ran().length, before);
      assert.deepEqual(await runCaller(tokens.bob!, "alpha", "save"), { ok: { saved: true } }, "a writing token may");
    });

    it("in-process call(): a read handler cannot relay a read-only token's call to a write handler", async () => {
      const before = ran().length;
      const res = await http(tokens.rootReadOnly!, "/plugins/alpha/relay?fn=wipe");
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.match(res.body.error, /read-only token/);
      assert.equal(ran().length, before);
    });

    it("MCP: the write tool is hidden and refused for a read-only token; the report says why", async () => {
      const client = await mcp(tokens.readOnly!);
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(names.includes("alpha_sum") && !names.includes("alpha_save"), names.join(","));
      await assert.rejects(client.callTool({ name: "alpha_save", arguments: {} }), (e: any) => e.code === -32602);
      const tokenId = (await t.app.store.findTokenByHash(hashSecret(tokens.readOnly!)))!.id;
      const report = await request(`${t.url}/api/tools/visibility?user=bob&token=${tokenId}`, tokens.root!);
      const save = report.body.tools.find((tool: { name: string }) => tool.name === "alpha_save");
      assert.equal(save.reason, "scope");
      assert.match(save.detail, /read-only token/);
    });

    it("a user tool marked destructive: 403 naming the read-only token over HTTP, hidden on MCP", async () => {
      const saved = await request(`${t.url}/api/tools`, tokens.bob!, { method: "POST", body: JSON.stringify({ name: "nuke", code: "export default () => 1;", destructive: true }) });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const res = await request(`${t.url}/api/tools/${saved.body.tool.id}/run`, tokens.readOnly!, { method: "POST", body: JSON.stringify({ args: {} }) });
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.code, "PERMISSION_DENIED");
      assert.match(res.body.error, /read-only token/);
      const client = await mcp(tokens.readOnly!);
      assert.ok(!(await client.listTools()).tools.some((tool) => tool.name === "nuke"));
      assert.equal((await request(`${t.url}/api/tools/${saved.body.tool.id}/run`, tokens.bob!, { method: "POST", body: JSON.stringify({ args: {} }) })).body.result, 1);
    });

    it("the refusals are audited as PERMISSION_DENIED", async () => {
      const rows = await t.app.store.queryAudit({ limit: 200 });
      assert.ok(rows.some((row) => row.tool === "alpha/save" && row.outcome === "PERMISSION_DENIED"));
      assert.ok(rows.some((row) => row.tool === "alpha/wipe" && row.outcome === "PERMISSION_DENIED"));
      assert.ok(rows.some((row) => row.tool === "alpha_save" && row.outcome === "PERMISSION_DENIED"));
    });
  });

  describe("the same class on /api: user tools read with a token scoped elsewhere", () => {
    it("a token scoped to plugin handlers only cannot read user tools over HTTP, as MCP's list_user_tools refuses it", async () => {
      for (const route of ["/api/tools", `/api/tools/${toolId}`, `/api/tools/${toolId}/versions`, `/api/tools/${toolId}/versions/1`]) {
        const res = await http(tokens.whoamiOnly!, route, "GET");
        assert.equal(res.status, 403, `${route}: ${JSON.stringify(res.body).slice(0, 200)}`);
        assert.equal(res.body.code, "PERMISSION_DENIED");
      }
      assert.equal((await http(tokens.whoamiOnly!, "/api/tools/check")).status, 403, "nor lint against its libs");
      // Later review: the lib pins, the editor's module list (libs shared with the caller), a sink's
      // deliveries, and the run route's kind refusal (which names the tool) leaked the same way.
      for (const [route, method] of [[`/api/tools/${toolId}/libs`, "GET"], ["/api/editor/modules", "GET"], [`/api/sinks/${toolId}/deliveries`, "GET"], [`/api/tools/${toolId}/run`, "POST"]] as const) {
        const res = await http(tokens.whoamiOnly!, route, method);
        assert.equal(res.status, 403, `${method} ${route}: ${JSON.stringify(res.body).slice(0, 200)}`);
        assert.equal(res.body.code, "PERMISSION_DENIED");
      }
      const streamed = await request(`${t.url}/api/runs`, tokens.whoamiOnly!, { method: "POST", body: JSON.stringify({ toolId, args: {} }) });
      assert.equal(streamed.status, 403, "nor look a tool up through the streamed run");
      assert.equal((await http(tokens.bob!, "/api/tools", "GET")).status, 200, "unscoped: as before");
      const reader = await t.token((await t.app.store.getUserByName("bob"))!, { permissions: ["knot.tools.author"], write: false });
      assert.equal((await http(reader, `/api/tools/${toolId}`, "GET")).status, 200, "a scope naming knot.tools.author may read");
      assert.equal((await http(reader, "/api/tools", "POST")).status, 403, "but not write (read-only)");
    });
  });

  describe("also noticed: the visibility report re-checks a token's revocation and expiry", () => {
    it("a revoked or expired token is reported as seeing nothing, not as its scopes would allow", async () => {
      const carl = await t.user("carl", { grants: ["knot.mcp", "plugin.alpha.sum"] });
      const live = await t.token(carl, { permissions: ["knot.mcp", "plugin.alpha.*"], write: true });
      const expired = await t.token(carl, { permissions: ["knot.mcp", "plugin.alpha.*"], write: true }, { expiresAt: new Date(Date.now() - 1000).toISOString() });
      const revoked = await t.token(carl, { permissions: ["knot.mcp", "plugin.alpha.*"], write: true });
      const idOf = async (secret: string) => (await t.app.store.findTokenByHash(hashSecret(secret)))!.id;
      await t.app.store.revokeToken(await idOf(revoked));
      const report = async (secret: string) => (await request(`${t.url}/api/tools/visibility?user=carl&token=${await idOf(secret)}`, tokens.root!)).body;
      const active = await report(live);
      assert.equal(active.tokenState, "active");
      assert.equal(active.mcp.allowed, true);
      assert.ok(active.tools.some((tool: { name: string; visible: boolean }) => tool.name === "alpha_sum" && tool.visible));
      for (const [secret, state] of [[expired, "expired"], [revoked, "revoked"]] as const) {
        const body = await report(secret);
        assert.equal(body.tokenState, state);
        assert.deepEqual(body.mcp, { allowed: false, reason: "token", detail: `the token is ${state}` });
        assert.deepEqual(body.tools, [], `${state}: no tool is visible`);
        assert.equal((await http(secret, "/plugins/alpha/whoami")).status, 401, `${state}: every other route refuses it`);
      }
      const principal = await t.app.auth.principalForToken((await t.app.store.getToken(await idOf(revoked)))!);
      assert.equal(principal, null, "principalForToken re-checks too");
    });
  });

  describe("a handler or tool that changes things must be gated", () => {
    it("plugins check and the loader name the key and line; the examples still load", async () => {
      const dir = tempDir("knot-ungated-write-");
      writePlugin(dir, "sloppy", { "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"

        [[tool.knot.handlers]]
        handler = "purge"
        destructive = true

        [[tool.knot.mcp_tools]]
        name = "sloppy_save"
        description = "Saves."
        handler = "save"
        write = true
      `) + "export function purge() {}\nexport function save() {}\n" });
      const res = cli(["plugins", "check", dir]);
      assert.equal(res.code, 1, res.stdout);
      const lines = res.stderr.trim().split("\n");
      assert.equal(lines.length, 2, res.stderr);
      assert.match(lines[0]!, /^sloppy: METADATA_INVALID: .*tool\.knot\.handlers\[0\]\.destructive = true needs a permission.*line 7\)/);
      assert.match(lines[1]!, /^sloppy: METADATA_INVALID: .*tool\.knot\.mcp_tools\[0\]\.write = true needs a permission.*line 13\)/);
      const examples = cli(["plugins", "check", EXAMPLE_PLUGINS]);
      assert.equal(examples.code, 0, examples.stderr);
      const conformance = cli(["plugins", "check", path.resolve(EXAMPLE_PLUGINS, "../conformance-plugins")]);
      assert.equal(conformance.code, 0, conformance.stderr);
    });
  });
});
