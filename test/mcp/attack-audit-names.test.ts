/**
 * Attack family: audit rows that mislead. Threat (found by an attacker probe): a row named a user
 * tool by its bare name, so mallory, who lacks a plugin tool's permission, saved her own tool under
 * that name, called it, and left a row (with a summary she chose) that read exactly like a call of
 * the gated plugin tool; and two authors' tools of one name ran over the API left identical rows
 * (while MCP named the shared one `alice__report`). Guarantee: a saved user tool's row names its
 * kind and owner (`user:alice/report`), on every surface (MCP, execute_tool, the run API, the
 * streaming run API); a sink's row is `sink:<owner>/<name>`; unsaved code is `draft:<name>`; a
 * plugin or boot tool keeps its MCP name. So no user can write a row that names another's tool.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, saveUserTool, writeMcpPlugins } from "./helpers.ts";

const RETURNS = (text: string) => `import { returnString } from "knot:tool";\nexport default function () { returnString(${JSON.stringify(text)}); }`;

describe("audit rows name what ran, whoever named it", () => {
  let t: TestApp;
  let olga: { user: { id: string }; token: string };
  let mallory: { user: { id: string }; token: string };
  let alicesReport: string;
  let mallorysReport: string;
  const clients: Client[] = [];
  const client = async (token: string) => {
    const { client } = await connect(t.url, token);
    clients.push(client);
    return client;
  };
  const rowsOf = async (userId: string, surface: string) =>
    (await t.app.store.queryAudit({ limit: 200 })).filter((row) => row.userId === userId && row.surface === surface).map((row) => row.tool);

  before(async () => {
    const plugins = writeMcpPlugins();
    t = await startApp({ pluginsDir: plugins.dir, config: { plugins: { tools: { marker: plugins.marker } } } });
    olga = await t.userWithToken("olga", { grants: ["knot.mcp", "plugin.tools.ops"] });
    mallory = await t.userWithToken("mallory", { grants: ["knot.mcp", "knot.tools.author"] });
    const alice = await t.userWithToken("alice", { grants: ["knot.mcp", "knot.tools.author"] });
    // mallory has no plugin.tools.ops: her own tool of the plugin tool's name is what she reaches.
    await saveUserTool(t, mallory.user.id, { name: "ops_report", code: RETURNS("exported 5000 rows") });
    alicesReport = (await saveUserTool(t, alice.user.id, { name: "report", code: RETURNS("alice's"), sharing: "everyone" })).id;
    mallorysReport = (await saveUserTool(t, mallory.user.id, { name: "report", code: RETURNS("mallory's") })).id;
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  test("a user tool named like a gated plugin tool leaves a row that names its owner, not the plugin tool", async () => {
    const olgas = await client(olga.token);
    assert.notEqual((await olgas.callTool({ name: "ops_report", arguments: {} })).isError, true);
    const mallorys = await client(mallory.token);
    const own = await mallorys.callTool({ name: "ops_report", arguments: {} });
    assert.deepEqual(own.content, [{ type: "text", text: "exported 5000 rows" }], "mallory reached her own tool");
    await mallorys.callTool({ name: "execute_tool", arguments: { name: "ops_report", arguments: {} } });
    assert.deepEqual(await rowsOf(olga.user.id, "mcp"), ["ops_report"]);
    const malloryRows = await rowsOf(mallory.user.id, "mcp");
    assert.ok(!malloryRows.includes("ops_report"), `no row of mallory's names the plugin tool: ${JSON.stringify(malloryRows)}`);
    assert.deepEqual(malloryRows.filter((tool) => tool === "user:mallory/ops_report").length, 2, "directly and through execute_tool");
  });

  test("two authors' tools of one name leave different rows, the same on MCP and the run APIs", async () => {
    const before = await t.app.store.queryAudit({ limit: 200 });
    const run = (id: string) => request(`${t.url}/api/tools/${id}/run`, mallory.token, { method: "POST", body: JSON.stringify({ args: {} }) });
    assert.equal((await run(alicesReport)).body.result, "alice's");
    assert.equal((await run(mallorysReport)).body.result, "mallory's");
    const streamed = await request(`${t.url}/api/runs`, mallory.token, { method: "POST", body: JSON.stringify({ toolId: alicesReport, args: {} }) });
    assert.equal(streamed.status, 200);
    const draft = await request(`${t.url}/api/runs`, mallory.token, { method: "POST", body: JSON.stringify({ draft: { name: "report", code: RETURNS("draft") }, args: {} }) });
    assert.equal(draft.status, 200);
    const mallorys = await client(mallory.token);
    assert.deepEqual((await mallorys.callTool({ name: "alice__report", arguments: {} })).content, [{ type: "text", text: "alice's" }]);
    const seen = new Set(before.map((row) => row.seq));
    const added = (await t.app.store.queryAudit({ limit: 200 })).filter((row) => !seen.has(row.seq) && row.userId === mallory.user.id);
    assert.deepEqual(added.map((row) => `${row.surface} ${row.tool}`).sort(), [
      "api draft:report",
      "api user:alice/report",
      "api user:alice/report",
      "api user:mallory/report",
      "mcp user:alice/report",
    ]);
  });
});
