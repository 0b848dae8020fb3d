/**
 * Attack family: refused MCP batches that flood the audit log and stall the server (issue 10
 * item 10). Threat: a user without `knot.mcp` (or with it) POSTs one JSON-RPC batch of thousands
 * of `tools/call` messages; each was audited synchronously before any batch limit, stalling the
 * event loop for seconds. Guarantee: an oversize batch is refused (413 PAYLOAD_TOO_LARGE) before
 * anything is audited or handed to the SDK; a refused request writes at most one audit row; tool
 * names in refused rows are clamped; the server keeps answering meanwhile.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MAX_BATCH_MESSAGES } from "../../src/mcp/request-limits.ts";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { writeMcpPlugins } from "./helpers.ts";

const headers = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" });

function batch(count: number, name = "greet") {
  return Array.from({ length: count }, (_, id) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { n: id } } }));
}

describe("attack: refused MCP batches flood the audit log", () => {
  let t: TestApp;
  let outsider: { user: { id: string }; token: string };
  let member: { user: { id: string }; token: string };

  before(async () => {
    const plugins = writeMcpPlugins();
    t = await startApp({ pluginsDir: plugins.dir, config: { plugins: { tools: { marker: plugins.marker } } } });
    outsider = await t.userWithToken("outsider");
    member = await t.userWithToken("member", { grants: ["knot.mcp"] });
  });
  after(() => t.close());

  const rowsOf = async (userId: string) => t.app.store.queryAudit({ userId, limit: 1000 });

  for (const who of ["outsider", "member"] as const) {
    it(`a 4,000-message batch from a user ${who === "outsider" ? "without" : "with"} knot.mcp is refused before any row is written`, async () => {
      const user = who === "outsider" ? outsider : member;
      const before = (await rowsOf(user.user.id)).length;
      const started = performance.now();
      const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: headers(user.token), body: JSON.stringify(batch(4_000)) });
      const answer = (await res.json()) as { error: { message: string; data: { code: string } } };
      assert.equal(res.status, 413);
      assert.equal(answer.error.data.code, "PAYLOAD_TOO_LARGE");
      assert.match(answer.error.message, /at most 32 messages, not 4000/);
      // Before the fix this took 17–31 s (a synced row per message); the bound leaves room for a loaded CI machine.
      assert.ok(performance.now() - started < 8_000, "answered promptly");
      assert.equal((await rowsOf(user.user.id)).length, before, "nothing audited for a batch refused by size");
    });
  }

  it(`a refused batch within the limit (${MAX_BATCH_MESSAGES} calls) writes exactly one row`, async () => {
    const before = (await rowsOf(outsider.user.id)).length;
    const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: headers(outsider.token), body: JSON.stringify(batch(MAX_BATCH_MESSAGES, "x".repeat(10_000))) });
    assert.equal(res.status, 403);
    await res.arrayBuffer();
    const rows = await rowsOf(outsider.user.id);
    assert.equal(rows.length, before + 1);
    const [row] = rows;
    assert.equal(row!.outcome, "PERMISSION_DENIED");
    assert.equal(row!.tool, "[batch]");
    const args = row!.args as { calls: number; tools: string[] };
    assert.equal(args.calls, MAX_BATCH_MESSAGES);
    assert.ok(args.tools.every((name) => name.length <= 200), "tool names are clamped");
  });

  it("a single refused call is one row with a clamped tool name and masked values", async () => {
    const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: headers(outsider.token), body: JSON.stringify(batch(1, "y".repeat(50_000))[0]) });
    assert.equal(res.status, 403);
    await res.arrayBuffer();
    const [row] = await rowsOf(outsider.user.id);
    assert.ok(row!.tool.length <= 200, `tool name of ${row!.tool.length}`);
    assert.match(String((row!.args as { n: string }).n), /^masked:/);
  });

  it("50 refused batches at once: each answered 403 with exactly one row, and the server keeps answering", async () => {
    const before = (await rowsOf(outsider.user.id)).length;
    const body = JSON.stringify(batch(MAX_BATCH_MESSAGES));
    const statuses = await Promise.all(Array.from({ length: 50 }, async () => {
      const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: headers(outsider.token), body });
      await res.arrayBuffer();
      return res.status;
    }));
    assert.deepEqual(new Set(statuses), new Set([403]));
    assert.equal((await rowsOf(outsider.user.id)).length, before + 50, "one row per refused request, not one per message");
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
  });

  it("a refused call with arguments 100,000 deep still writes its one (masked, cut) row", async () => {
    const deep = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"deep":${deep},"plain":"visible?"}}}`;
    const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: headers(outsider.token), body });
    assert.equal(res.status, 403);
    await res.arrayBuffer();
    const [row] = await rowsOf(outsider.user.id);
    assert.equal(row!.tool, "greet");
    const args = row!.args as Record<string, string>;
    assert.match(args.deep!, /^masked:/);
    assert.match(args.plain!, /^masked:/);
  });

  it("a deep _meta or params outside the arguments neither crashes /mcp nor writes more than one row", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{},"_meta":{"x":${deep}}}}`;
    const before = (await rowsOf(member.user.id)).length;
    const init = await fetch(`${t.url}/mcp`, { method: "POST", headers: headers(member.token), body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) });
    await init.text();
    const session = { ...headers(member.token), "mcp-session-id": init.headers.get("mcp-session-id")! };
    const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: session, body });
    assert.ok(res.status < 500, `status ${res.status}`);
    await res.arrayBuffer();
    assert.ok((await rowsOf(member.user.id)).length <= before + 1);
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
  });

  it("the chain verifies", async () => {
    const verdict = await verifyAuditChain(t.app.store.iterateAudit());
    assert.equal(verdict.ok, true, JSON.stringify(verdict));
  });
});
