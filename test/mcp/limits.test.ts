/**
 * Every call has a deadline and client cancellation stops the run: a user tool that loops forever
 * is stopped (its run leaves the sandbox) by either, a plugin tool that never finishes fails with
 * HANDLER_TIMEOUT, and the server keeps serving afterwards.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, saveUserTool, USER_TOOLS, writeMcpPlugins } from "./helpers.ts";

// Long enough for a fresh sandbox worker to start on a loaded machine after a run was stopped.
const DEADLINE_MS = 2_000;

describe("MCP deadlines and cancellation", () => {
  let t: TestApp;
  let client: Client;

  const settled = async () => {
    const until = Date.now() + 5_000;
    while (t.app.sandbox.stats().busy > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    return t.app.sandbox.stats().busy;
  };
  const stillServing = async () => {
    const result = await client.callTool({ name: "u_echo", arguments: { text: "alive" } });
    assert.deepEqual(result.structuredContent, { echo: "alive", summary: "echoed" }, JSON.stringify(result));
  };
  const running = async () => {
    const until = Date.now() + 5_000;
    while (t.app.sandbox.stats().busy === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    return t.app.sandbox.stats().busy;
  };

  before(async () => {
    const plugins = writeMcpPlugins();
    t = await startApp({ pluginsDir: plugins.dir, config: { handlerTimeoutMs: DEADLINE_MS, plugins: { tools: { marker: plugins.marker } } } });
    const { user, token } = await t.userWithToken("lena", { grants: ["knot.mcp"] });
    await saveUserTool(t, user.id, { name: "u_loop", code: USER_TOOLS.loop });
    await saveUserTool(t, user.id, { name: "u_echo", code: USER_TOOLS.echo, parameters: [{ name: "text", type: "string", required: true }] });
    client = (await connect(t.url, token)).client;
  });
  after(async () => {
    await client.close();
    await t.close();
  });

  test("the call deadline stops a user tool that loops forever", async () => {
    const started = performance.now();
    const result = await client.callTool({ name: "u_loop", arguments: {} });
    const took = performance.now() - started;
    assert.equal(result.isError, true);
    assert.equal((result._meta as any)["knot-tools/errorCode"], "TOOL_TIMEOUT");
    assert.ok(took >= DEADLINE_MS - 50 && took < DEADLINE_MS + 4_000, `took ${took} ms`);
    assert.equal(await settled(), 0, "the run left the sandbox");
    await stillServing();
    const row = (await t.app.store.queryAudit({ tool: "user:lena/u_loop", limit: 1 }))[0];
    assert.equal(row?.outcome, "TOOL_TIMEOUT");
  });

  test("client cancellation stops a user tool that loops forever", async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: "u_loop", arguments: {} }, undefined, { signal: abort.signal });
    assert.equal(await running(), 1, "the run is in the sandbox");
    await new Promise((r) => setTimeout(r, 100));
    abort.abort();
    await assert.rejects(call);
    const started = performance.now();
    assert.equal(await settled(), 0, "the run left the sandbox");
    assert.ok(performance.now() - started < DEADLINE_MS, "stopped by the cancellation, not the deadline");
    await stillServing();
    const until = Date.now() + 2_000;
    let rows = await t.app.store.queryAudit({ tool: "user:lena/u_loop", limit: 5 });
    while (rows.length < 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 25));
      rows = await t.app.store.queryAudit({ tool: "user:lena/u_loop", limit: 5 });
    }
    assert.equal(rows[0]?.outcome, "CANCELLED");
  });

  test("a plugin tool that never finishes fails with HANDLER_TIMEOUT", async () => {
    const result = await client.callTool({ name: "hang", arguments: {} });
    assert.equal(result.isError, true);
    assert.equal((result._meta as any)["knot-tools/errorCode"], "HANDLER_TIMEOUT");
    await stillServing();
  });
});
