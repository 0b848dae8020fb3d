/**
 * One resolver for listing and calling: per-user and per-token differences, hidden tools refused
 * on direct call before any code runs, shadowing, schemas and annotations, and the admins'
 * visibility report explaining every hidden tool.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { hashSecret } from "../../src/auth/secrets.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, markerLines, saveUserTool, toolNames, USER_TOOLS, writeMcpPlugins } from "./helpers.ts";

const BOOT = ["tool_search", "execute_tool"];
const AUTHORING = ["list_user_tools", "get_user_tool", "save_user_tool", "delete_user_tool"];
const UNGATED_TOOLS = ["open_echo", "danger_wipe", "login", "kaboom", "hang", "typed", "chatty"];

describe("MCP listing and calling through one resolver", () => {
  let t: TestApp;
  let marker: string;
  const clients: Client[] = [];
  const tokens: Record<string, string> = {};
  const client = async (who: string) => {
    const { client } = await connect(t.url, tokens[who]!);
    clients.push(client);
    return client;
  };
  const sorted = (names: string[]) => [...names].sort();

  before(async () => {
    const plugins = writeMcpPlugins();
    marker = plugins.marker;
    t = await startApp({ pluginsDir: plugins.dir, config: { plugins: { tools: { marker } } } });
    tokens.admin = (await t.userWithToken("admin", { admin: true })).token;
    // danger_wipe is destructive, so it must be gated (plugin.tools.wipe): these users hold it.
    const plain = await t.userWithToken("plain", { grants: ["knot.mcp", "plugin.tools.wipe"] });
    tokens.plain = plain.token;
    tokens.opsy = (await t.userWithToken("opsy", { groups: ["ops"] })).token;
    await t.app.store.grant({ subject: { kind: "group", group: "ops" }, permission: "plugin.tools.ops" });
    await t.app.store.grant({ subject: { kind: "group", group: "ops" }, permission: "knot.mcp" });
    await t.app.store.grant({ subject: { kind: "group", group: "ops" }, permission: "plugin.tools.wipe" });
    const carol = await t.user("carol", { grants: ["knot.mcp", "knot.tools.author", "plugin.stats.read", "plugin.tools.wipe"] });
    tokens.carolStats = await t.token(carol, { permissions: ["knot.mcp", "plugin.stats.*"], write: true });
    tokens.carolTools = await t.token(carol, { permissions: ["knot.mcp", "plugin.tools.*", "knot.tools.run"], write: false });
    const dave = await t.user("dave");
    await saveUserTool(t, plain.user.id, { name: "greet", code: USER_TOOLS.greet, description: "Greets from a user tool." });
    await saveUserTool(t, plain.user.id, { name: "tool_search", code: USER_TOOLS.greet });
    await saveUserTool(t, dave.id, { name: "shared_echo", code: USER_TOOLS.echo, sharing: "everyone", parameters: [{ name: "text", type: "string", required: true }] });
    await saveUserTool(t, dave.id, { name: "daves_secret", code: USER_TOOLS.echo });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  test("admin, a plain user and a user with a group grant each list exactly what they may call", async () => {
    const admin = await toolNames(await client("admin"));
    assert.deepEqual(admin.slice(0, 6), [...BOOT, ...AUTHORING], "boot tools come first");
    assert.deepEqual(sorted(admin), sorted([...BOOT, ...AUTHORING, "dave__shared_echo", "ops_report", ...UNGATED_TOOLS, "greet", "stats_read", "stats_ping"]));

    const plain = await toolNames(await client("plain"));
    assert.deepEqual(plain.slice(0, 4), [...BOOT, "greet", "dave__shared_echo"], "boot, own, then shared user tools");
    assert.deepEqual(sorted(plain), sorted([...BOOT, "greet", "dave__shared_echo", ...UNGATED_TOOLS, "stats_ping"]));

    const opsy = await toolNames(await client("opsy"));
    assert.deepEqual(sorted(opsy), sorted([...BOOT, "dave__shared_echo", "ops_report", ...UNGATED_TOOLS, "greet", "stats_ping"]));
  });

  test("two tokens of one user with different scopes list different tools", async () => {
    assert.deepEqual(sorted(await toolNames(await client("carolStats"))), sorted([...BOOT, "stats_read", "stats_ping"]));
    // No write: the destructive tool is gone; no plugin.stats scope; knot.tools.author is not in scope.
    assert.deepEqual(sorted(await toolNames(await client("carolTools"))), sorted([...BOOT, "dave__shared_echo", "open_echo", "login", "kaboom", "hang", "typed", "chatty", "greet"]));
  });

  test("a hidden tool called directly is refused before any of its code runs, and audited", async () => {
    const before = markerLines(marker).length;
    const plain = await client("plain");
    await assert.rejects(plain.callTool({ name: "ops_report", arguments: {} }), (e: any) => e.code === -32602 && /Unknown tool: ops_report/.test(e.message) && e.data?.code === "UNKNOWN_TOOL");
    const scoped = await client("carolTools");
    await assert.rejects(scoped.callTool({ name: "danger_wipe", arguments: {} }), (e: any) => e.code === -32602);
    await assert.rejects(scoped.callTool({ name: "execute_tool", arguments: { name: "danger_wipe" } }), (e: any) => e.code === -32602);
    await assert.rejects((await client("carolStats")).callTool({ name: "dave__shared_echo", arguments: { text: "x" } }), (e: any) => e.code === -32602);
    await assert.rejects(plain.callTool({ name: "no_such_tool", arguments: {} }), (e: any) => e.code === -32602);
    assert.equal(markerLines(marker).length, before, "no plugin code ran");
    const rows = await t.app.store.queryAudit({ limit: 10 });
    const outcome = (tool: string) => rows.find((r) => r.tool === tool)?.outcome;
    assert.equal(outcome("ops_report"), "PERMISSION_DENIED");
    assert.equal(outcome("danger_wipe"), "PERMISSION_DENIED");
    assert.equal(outcome("dave__shared_echo"), "PERMISSION_DENIED");
    assert.equal(outcome("no_such_tool"), "UNKNOWN_TOOL");
    // The call through execute_tool is refused too: no ok row for it.
    assert.equal(rows.filter((r) => r.tool === "execute_tool" && r.outcome === "ok").length, 0);
  });

  test("a user tool shadows the plugin tool of the same name, and a boot tool shadows a user tool", async () => {
    const plain = await client("plain");
    const names = await toolNames(plain);
    assert.equal(names.filter((n) => n === "greet").length, 1);
    assert.equal(names.filter((n) => n === "tool_search").length, 1);
    const before = markerLines(marker).length;
    const result = await plain.callTool({ name: "greet", arguments: {} });
    assert.deepEqual(result.content, [{ type: "text", text: "hello from the user tool" }]);
    assert.equal(markerLines(marker).length, before, "the shadowed plugin tool did not run");
    const search = await plain.callTool({ name: "tool_search", arguments: { query: "echo" } });
    assert.ok((search.structuredContent as any).tools.some((t: any) => t.name === "open_echo"), "the boot tool_search answered");
    const opsy = await client("opsy");
    assert.deepEqual((await opsy.callTool({ name: "greet", arguments: {} })).content, [{ type: "text", text: "hello from the plugin" }]);
  });

  test("input schemas come from declared parameters; annotations from read_only and destructive", async () => {
    const tools = (await (await client("admin")).listTools()).tools;
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.deepEqual(byName.get("open_echo")!.inputSchema, { type: "object", properties: { message: { type: "string", description: "What to echo." } }, required: ["message"] });
    assert.deepEqual(byName.get("typed")!.inputSchema.properties, { count: { type: "integer", description: "How many." }, mode: { type: "string", default: "fast", enum: ["fast", "slow"] } });
    assert.equal(byName.get("open_echo")!.annotations?.readOnlyHint, true);
    assert.equal(byName.get("danger_wipe")!.annotations?.destructiveHint, true);
    assert.deepEqual(byName.get("dave__shared_echo")!.inputSchema, { type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    assert.ok(tools.every((tool) => typeof tool.description === "string" && tool.description.length > 0));
  });

  test("GET /api/tools/visibility explains each hidden tool: missing grant, scope, sharing, shadowed", async () => {
    const plain = await request(`${t.url}/api/tools/visibility?user=plain`, tokens.admin!);
    assert.equal(plain.status, 200);
    const reason = (body: any, name: string, kind?: string) => body.tools.find((x: any) => x.name === name && (!kind || x.kind === kind));
    assert.equal(plain.body.mcp.allowed, true);
    assert.equal(reason(plain.body, "ops_report").reason, "missing grant");
    assert.equal(reason(plain.body, "save_user_tool").reason, "missing grant");
    assert.equal(reason(plain.body, "greet", "plugin").reason, "shadowed");
    assert.equal(reason(plain.body, "greet", "user").visible, true);
    assert.equal(reason(plain.body, "tool_search", "user").reason, "shadowed");
    assert.equal(reason(plain.body, "dave__daves_secret").reason, "sharing");
    assert.equal(reason(plain.body, "open_echo").visible, true);

    const tokenId = (await t.app.store.findTokenByHash(hashSecret(tokens.carolTools!)))!.id;
    const scoped = await request(`${t.url}/api/tools/visibility?user=carol&token=${tokenId}`, tokens.admin!);
    assert.equal(scoped.status, 200);
    assert.equal(reason(scoped.body, "danger_wipe").reason, "scope");
    assert.match(reason(scoped.body, "danger_wipe").detail, /change things/);
    assert.equal(reason(scoped.body, "stats_read").reason, "scope");
    assert.equal(reason(scoped.body, "save_user_tool").reason, "scope");
    assert.equal(reason(scoped.body, "dave__shared_echo").visible, true);

    const dave = await request(`${t.url}/api/tools/visibility?user=dave`, tokens.admin!);
    assert.deepEqual(dave.body.mcp, { allowed: false, reason: "missing grant", detail: "needs knot.mcp" });

    assert.equal((await request(`${t.url}/api/tools/visibility?user=plain`, tokens.plain!)).status, 403);
    assert.equal((await request(`${t.url}/api/tools/visibility?user=nobody`, tokens.admin!)).body.code, "NOT_FOUND");
    assert.equal((await request(`${t.url}/api/tools/visibility?user=plain&token=${tokenId}`, tokens.admin!)).body.code, "NOT_FOUND");
  });

  test("GET /api/me/visibility: every user asks why a tool is hidden from them, never about others' tools", async () => {
    const reason = (body: any, name: string, kind?: string) => body.tools.find((x: any) => x.name === name && (!kind || x.kind === kind));
    const mine = await request(`${t.url}/api/me/visibility`, tokens.plain!);
    assert.equal(mine.status, 200);
    assert.equal(mine.body.user, "plain");
    assert.equal(mine.body.mcp.allowed, true);
    assert.equal(reason(mine.body, "ops_report").reason, "missing grant");
    assert.equal(reason(mine.body, "greet", "plugin").reason, "shadowed");
    assert.equal(reason(mine.body, "open_echo").visible, true);
    assert.equal(reason(mine.body, "dave__shared_echo").visible, true);
    assert.equal(reason(mine.body, "daves_secret"), undefined, "another user's unshared tool is not named to others");
    const admins = await request(`${t.url}/api/tools/visibility?user=plain`, tokens.admin!);
    const withoutSharing = admins.body.tools.filter((x: any) => x.reason !== "sharing");
    assert.deepEqual(mine.body.tools, withoutSharing, "the same report as the admin's, less other users' tools");

    // A scoped token learns about itself only: its own scopes decide, and it may not ask about another token.
    const carolToolsId = (await t.app.store.findTokenByHash(hashSecret(tokens.carolTools!)))!.id;
    const carolStatsId = (await t.app.store.findTokenByHash(hashSecret(tokens.carolStats!)))!.id;
    const scoped = await request(`${t.url}/api/me/visibility`, tokens.carolTools!);
    assert.equal(scoped.status, 200);
    assert.equal(scoped.body.token, carolToolsId);
    assert.equal(reason(scoped.body, "stats_read").reason, "scope");
    assert.equal(reason(scoped.body, "danger_wipe").reason, "scope");
    assert.equal((await request(`${t.url}/api/me/visibility?token=${carolStatsId}`, tokens.carolTools!)).body.code, "PERMISSION_DENIED");
    // An unscoped caller may ask about each of their own tokens, and only their own.
    const carol = await t.userWithToken("carol2", { grants: ["knot.mcp"] });
    assert.equal((await request(`${t.url}/api/me/visibility?token=${carolToolsId}`, carol.token)).body.code, "NOT_FOUND");
    const dave = await request(`${t.url}/api/me/visibility`, (await t.userWithToken("erin")).token);
    assert.deepEqual(dave.body.mcp, { allowed: false, reason: "missing grant", detail: "needs knot.mcp" });
  });
});
