/**
 * Attack family: calls that leave no audit row, on the HTTP seams (issue 10 item 3). Threat:
 * params nested thousands deep, sent to a plugin handler over HTTP (body or the `params` query
 * parameter), to the API, or passed on by a user tool over the loopback, overflowed the audit
 * row's canonical JSON after the handler had run. Guarantee: nesting deeper than 64 is refused
 * with 400 INVALID_ARGUMENT before any handler or run starts, and the refusal is audited; a row
 * that still cannot be built is replaced by an `[unrecordable]` fallback row and counted in
 * /metrics; a result's summary nested too deep is recorded as a marker.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { UNRECORDABLE } from "../../src/audit/audit-log.ts";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";

const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

describe("attack: calls that leave no audit row (HTTP, API, loopback)", () => {
  let t: TestApp;
  let marker: string;
  let alice: { user: { id: string }; token: string };
  let admin: { token: string };

  before(async () => {
    const root = tempDir();
    marker = path.join(tempDir(), "ran.log");
    fs.writeFileSync(marker, "");
    writePlugin(root, "deep", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"
        config = ["marker"]

        [[tool.knot.handlers]]
        handler = "mark"

        [[tool.knot.handlers]]
        handler = "deep_summary"
      `) + `
import fs from "node:fs";
export function mark(request) { fs.appendFileSync(request.config.marker, "mark\\n"); return { ok: true }; }
export function deep_summary() {
  let summary = { leaf: 1 };
  for (let i = 0; i < 100; i += 1) summary = { s: summary };
  return { summary };
}
`,
    });
    t = await startApp({ pluginsDir: root, config: { plugins: { deep: { marker } } } });
    alice = await t.userWithToken("alice", { grants: ["knot.tools.author"] });
    admin = await t.userWithToken("root", { admin: true });
  });
  after(() => t.close());

  const ran = () => fs.readFileSync(marker, "utf8").split("\n").filter(Boolean).length;
  const lastRow = async (tool: string) => (await t.app.store.queryAudit({ tool, limit: 1 }))[0];

  for (const depth of [65, 1_500, 100_000]) {
    it(`a POST body ${depth} deep to a plugin handler is 400 INVALID_ARGUMENT, audited, and the handler never runs`, async () => {
      const before = ran();
      const res = await request(`${t.url}/plugins/deep/mark`, alice.token, { method: "POST", body: `{"deep":${nestedText(depth)}}` });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "INVALID_ARGUMENT");
      assert.match(res.body.error, /request body is nested more than 64 levels deep/);
      assert.equal(ran(), before);
      const row = await lastRow("deep/mark");
      assert.equal(row?.outcome, "INVALID_ARGUMENT");
      assert.equal(row?.surface, "http");
    });
  }

  it("the same through the `params` query parameter of a GET", async () => {
    const before = ran();
    const res = await request(`${t.url}/plugins/deep/mark?params=${encodeURIComponent(`{"deep":${nestedText(100)}}`)}`, alice.token);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_ARGUMENT");
    assert.equal(ran(), before);
    assert.equal((await lastRow("deep/mark"))?.outcome, "INVALID_ARGUMENT");
  });

  it("64 deep still reaches the handler", async () => {
    const before = ran();
    const res = await request(`${t.url}/plugins/deep/mark`, alice.token, { method: "POST", body: `{"deep":${nestedText(63)}}` });
    assert.equal(res.status, 200);
    assert.equal(ran(), before + 1);
    assert.equal((await lastRow("deep/mark"))?.outcome, "ok");
  });

  it("/api/tools/run with deep args is refused before a run starts", async () => {
    const res = await request(`${t.url}/api/tools/run`, alice.token, { method: "POST", body: `{"code":"export default () => 1;","args":{"x":${nestedText(5_000)}}}` });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_ARGUMENT");
  });

  it("a user tool passing deep params over the loopback is refused there, audited as a loopback call, and the handler never runs", async () => {
    const before = ran();
    const code = `import { call } from "knot:plugin";
export default async () => {
  let v = 1;
  for (let i = 0; i < 3000; i += 1) v = [v];
  try { await call("deep", "mark", { v }, { method: "POST" }); return "called"; } catch (error) { return String(error.code); }
};`;
    const res = await request(`${t.url}/api/tools/run`, alice.token, { method: "POST", body: JSON.stringify({ code }) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(ran(), before, "the handler never ran");
    const row = await lastRow("deep/mark");
    assert.equal(row?.surface, "loopback");
    assert.equal(row?.outcome, "INVALID_ARGUMENT");
    assert.notEqual(res.body.result, "called", JSON.stringify(res.body));
  });

  it("a result whose summary nests too deep is recorded as a marker, not dropped", async () => {
    const res = await request(`${t.url}/plugins/deep/deep_summary`, alice.token);
    assert.equal(res.status, 200);
    const row = await lastRow("deep/deep_summary");
    assert.equal(row?.outcome, "ok");
    assert.match(String(row?.summary), /^\[INVALID_ARGUMENT: .*nested more than 64 levels deep\]$/);
  });

  it("a row that cannot be built is replaced by the [unrecordable] fallback row, counted in /metrics", async () => {
    const hostile = { get boom(): unknown { throw new Error("getter throws"); } };
    const principal = await t.app.auth.principalFor(alice.user.id, "token");
    await t.app.audit.record({ principal, surface: "api", tool: "fallback_probe", args: hostile as Record<string, unknown>, outcome: "ok", durationMs: 1 });
    const row = await lastRow("fallback_probe");
    assert.equal(row?.args, UNRECORDABLE);
    assert.equal(row?.userId, alice.user.id);
    assert.equal(row?.outcome, "ok");
    const metrics = await request(`${t.url}/metrics`, admin.token);
    assert.match(String(metrics.body), /^knot_audit_fallback_rows_total 1$/m);
    assert.match(String(metrics.body), /^knot_audit_rows_lost_total 0$/m);
  });

  it("the chain verifies", async () => {
    const verdict = await verifyAuditChain(t.app.store.iterateAudit());
    assert.equal(verdict.ok, true, JSON.stringify(verdict));
  });
});
