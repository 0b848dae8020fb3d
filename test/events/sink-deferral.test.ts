/**
 * A delivery the host could not start (the owner's run quota, a busy or closing sandbox, a plugin
 * restarting) is not the sink's failure: it is put off without using one of its attempts, so a
 * burst of events or a busy moment does not kill deliveries that never ran.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, it } from "node:test";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { RECORDING_SINK, writeShop } from "./helpers.ts";
import { DEFAULT_QUOTAS } from "../../src/tools/quotas.ts";

let t: TestApp;
before(async () => {
  const root = tempDir();
  const marker = path.join(tempDir(), "events.log");
  writeShop(root, marker);
  t = await startApp({
    pluginsDir: root,
    config: {
      plugins: { shop: { marker } },
      sinks: { maxAttempts: 2, backoffMs: 50, maxBackoffMs: 200, pollMs: 50, retentionDays: 30 },
      quotas: { ...DEFAULT_QUOTAS, userConcurrentRuns: 4, userRunsPerMinute: 2, tokenConcurrentRuns: 4, tokenRunsPerMinute: 1_000, maxConcurrentRuns: 64, maxQueuedRuns: 1_000 },
    },
  });
});
after(() => t.close());

it("deliveries refused by the owner's run quota are put off, not failed to death", async () => {
  const { token } = await t.userWithToken("busy", { grants: ["knot.tools.author"] });
  const sink = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "counter", kind: "sink", events: ["tool.saved"], code: RECORDING_SINK("counter") }) });
  assert.equal(sink.status, 201, JSON.stringify(sink.body));
  // Its own save plus four more: the quota lets two runs a minute start.
  for (let i = 0; i < 4; i += 1) {
    assert.equal((await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: `t${i}`, code: "export default () => 1;\n" }) })).status, 201);
  }
  const rows = () => t.app.store.listDeliveries(sink.body.tool.id, 10);
  for (let waited = 0; (await rows()).filter((row) => row.status === "delivered").length < 2 && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 1_500)); // many retry rounds at 50-200 ms
  const all = await rows();
  assert.equal(all.filter((row) => row.status === "delivered").length, 2);
  assert.deepEqual(all.filter((row) => row.status === "dead").map((row) => row.lastError), [], "deliveries that never ran were failed to death");
  const waiting = all.filter((r) => r.status !== "delivered");
  assert.equal(waiting.length, 3);
  for (const row of waiting) assert.equal(row.attempts, 0, "a put-off delivery used an attempt");
  // The sink's oldest waiting delivery was tried and put off; the ones behind it wait their turn.
  assert.ok(waiting.some((row) => /^RATE_LIMITED: /.test(row.lastError ?? "")), JSON.stringify(waiting));
});
