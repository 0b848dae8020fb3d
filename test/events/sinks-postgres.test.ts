/**
 * Event sinks on PostgreSQL with two instances sharing the database: each delivery happens once
 * across instances (claims are FOR UPDATE SKIP LOCKED plus a lease), still in order per sink.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openStore } from "../../src/store/index.ts";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { waitFor } from "../helpers/peers.ts";
import { sharedPostgres } from "../helpers/postgres.ts";
import { RECORDING_SINK, records, writeShop } from "./helpers.ts";

const cluster = sharedPostgres();

describe("event sinks on PostgreSQL, two instances", () => {
  let one: TestApp, two: TestApp;
  let marker: string, url: string;

  before(async () => {
    url = await (await cluster()).createSchema();
    const root = tempDir();
    marker = path.join(tempDir(), "events.log");
    writeShop(root, marker);
    const config = { database: url, plugins: { shop: { marker } }, sinks: { maxAttempts: 3, backoffMs: 50, maxBackoffMs: 200, pollMs: 20, retentionDays: 30 } };
    one = await startApp({ pluginsDir: root, config });
    two = await startApp({ pluginsDir: root, config });
  });
  after(async () => {
    await one?.close();
    await two?.close();
  });

  it("competing claims from two stores never take the same delivery", async () => {
    // Its own schema: the two running instances' dispatchers would claim these rows too.
    const schema = await (await cluster()).createSchema();
    const a = await openStore({ path: schema });
    const b = await openStore({ path: schema });
    try {
      const owner = await a.createUser({ name: "claimer", isAdmin: false });
      const sinks = [];
      for (let i = 0; i < 6; i += 1) {
        sinks.push(await a.createUserTool(owner.id, { name: `s${i}`, kind: "sink", events: ["tool.saved"], description: "", language: "js", parameters: [], code: "export default () => {}", sharing: "private", active: false }));
      }
      await a.appendEvent({ id: crypto.randomUUID(), type: "tool.saved", at: "2000-01-01T00:00:00.000Z", data: {} }, sinks.map((s) => s.id));
      const now = new Date().toISOString();
      const lease = new Date(Date.now() + 60_000).toISOString();
      const [x, y] = await Promise.all([a.claimDeliveries(now, lease, 6), b.claimDeliveries(now, lease, 6)]);
      const ids = [...x, ...y].map((d) => d.id);
      assert.equal(ids.length, 6, "every sink's head delivery is claimed");
      assert.equal(new Set(ids).size, 6, "no delivery is claimed twice");
      assert.deepEqual(await a.claimDeliveries(now, lease, 6), [], "leased deliveries are not claimable");
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("each event is delivered once across both instances, in order", async () => {
    const alice = await one.userWithToken("alice", { grants: ["knot.tools.author"] });
    const sink = await request(`${one.url}/api/tools`, alice.token, { method: "POST", body: JSON.stringify({ name: "once", kind: "sink", events: ["tool.saved"], code: RECORDING_SINK("once") }) });
    assert.equal(sink.status, 201, JSON.stringify(sink.body));
    const names = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    for (const [i, name] of names.entries()) {
      const via = i % 2 === 0 ? one : two;
      const res = await request(`${via.url}/api/tools`, alice.token, { method: "POST", body: JSON.stringify({ name, code: "export default () => 1;\n" }) });
      assert.equal(res.status, 201);
    }
    const id = sink.body.tool.id;
    await waitFor(async () => (await one.app.store.listDeliveries(id, 100)).filter((d) => d.status === "delivered").length === 13, 60_000, "13 deliveries");
    await new Promise((r) => setTimeout(r, 300));
    const got = records(marker).filter((r) => r.sink === "once");
    assert.equal(new Set(got.map((r) => r.id)).size, got.length, "no event delivered twice");
    assert.deepEqual(got.map((r) => r.data.name), ["once", ...names]);
    for (const d of await two.app.store.listDeliveries(id, 100)) assert.equal(d.attempts, 1);
  });

  it("a plugin's event reaches the sink exactly as emitted: U+0000, an unpaired surrogate, key order", async () => {
    const carol = await one.userWithToken("carol", { grants: ["knot.tools.author", "plugin.shop.orders"] });
    const sink = await request(`${one.url}/api/tools`, carol.token, { method: "POST", body: JSON.stringify({ name: "exact", kind: "sink", events: ["plugin.shop.order_placed"], code: RECORDING_SINK("exact") }) });
    assert.equal(sink.status, 201, JSON.stringify(sink.body));
    const item = { zeta: 1, a: 2, text: "a\u0000b", half: "\ud800" };
    const placed = await request(`${two.url}/plugins/shop/place`, carol.token, { method: "POST", body: JSON.stringify({ item }) });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    await waitFor(async () => records(marker).some((r) => r.sink === "exact"), 60_000, "the sink ran");
    const [got] = records(marker).filter((r) => r.sink === "exact");
    assert.equal(JSON.stringify(got?.data.item), JSON.stringify(item));
  });
});
