/**
 * Tool-list changes made over HTTP by another process reach a stdio client on the same SQLite
 * file (issue 11): two real processes — this test's HTTP server and a `knot-tools mcp` child
 * spawned by the SDK's StdioClientTransport. A save, a share by someone else, a grant, a delete
 * and a revoke each send `notifications/tools/list_changed`, and the next listing follows; a
 * change this user cannot see sends nothing.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { LIST_POLL_MS } from "../../src/mcp/list-watch.ts";
import { cliArgs } from "../helpers/cli.ts";
import { EXAMPLE_PLUGINS, request, startApp, type TestApp } from "../helpers/fixtures.ts";

const CODE = "export default () => 'hi';";

let t: TestApp;
let client: Client;
let changed = 0;
let stderr = "";
let sam: string;
let ann: string;
let admin: string;
let samId: string;

before(async () => {
  t = await startApp();
  const created = await t.userWithToken("sam", { grants: ["knot.mcp", "knot.tools.author"] });
  sam = created.token;
  samId = created.user.id;
  ann = (await t.userWithToken("ann", { grants: ["knot.tools.author"] })).token;
  admin = (await t.userWithToken("root", { admin: true })).token;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cliArgs(["mcp", "--user", "sam", "--db", t.app.config.database, "--plugins", EXAMPLE_PLUGINS]),
    cwd: t.dir, stderr: "pipe",
  });
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  client = new Client({ name: "stdio-notify", version: "1" });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  await client.connect(transport);
});
after(async () => {
  await client.close();
  await t.close();
});

async function names(): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

/** Waits until the stdio process has told one more change than `before` (or fails with its stderr). */
async function nextChange(before: number): Promise<void> {
  for (let waited = 0; changed === before && waited < 15_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  assert.equal(changed, before + 1, `no list_changed reached the stdio client; its stderr: ${stderr}`);
}

it("saving, sharing, granting and deleting over HTTP notify the stdio client of another process", async () => {
  assert.ok(!(await names()).includes("mine"));

  let before = changed;
  const saved = await request(`${t.url}/api/tools`, sam, { method: "POST", body: JSON.stringify({ name: "mine", code: CODE }) });
  assert.equal(saved.status, 201, JSON.stringify(saved.body));
  await nextChange(before);
  assert.ok((await names()).includes("mine"));

  before = changed;
  const shared = await request(`${t.url}/api/tools`, ann, { method: "POST", body: JSON.stringify({ name: "anns", code: CODE, sharing: "everyone" }) });
  assert.equal(shared.status, 201, JSON.stringify(shared.body));
  await nextChange(before);
  assert.ok((await names()).includes("ann__anns"));

  before = changed;
  const subject = `user:${samId}`;
  const granted = await request(`${t.url}/api/grants`, admin, { method: "POST", body: JSON.stringify({ subject, permission: "plugin.metrics.export" }) });
  assert.equal(granted.status, 201, JSON.stringify(granted.body));
  await nextChange(before);
  assert.ok((await names()).includes("export_metrics"));

  before = changed;
  const revoked = await request(`${t.url}/api/grants?subject=${encodeURIComponent(subject)}&permission=plugin.metrics.export`, admin, { method: "DELETE" });
  assert.equal(revoked.status, 200);
  await nextChange(before);
  assert.ok(!(await names()).includes("export_metrics"));

  before = changed;
  const deleted = await request(`${t.url}/api/tools/${saved.body.tool.id}`, sam, { method: "DELETE" });
  assert.equal(deleted.status, 200);
  await nextChange(before);
  assert.ok(!(await names()).includes("mine"));
});

it("a change the stdio user cannot see (another user's private tool, audit rows) sends nothing", async () => {
  const before = changed;
  const hidden = await request(`${t.url}/api/tools`, ann, { method: "POST", body: JSON.stringify({ name: "anns_private", code: CODE }) });
  assert.equal(hidden.status, 201, JSON.stringify(hidden.body));
  await client.callTool({ name: "tool_search", arguments: { query: "anything" } });
  await new Promise((r) => setTimeout(r, LIST_POLL_MS * 4));
  assert.equal(changed, before);
  assert.ok(!(await names()).includes("ann__anns_private"));
});
