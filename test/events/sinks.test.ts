/**
 * Event sinks on SQLite: saved like tools (unknown types refused at save), run in the sandbox as
 * their owner from a durable outbox, in order per sink, retried with backoff and dead-lettered,
 * seeing only what their owner may see, and never re-triggered by their own effects.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { waitFor } from "../helpers/peers.ts";
import { RECORDING_SINK, records, writeShop } from "./helpers.ts";

const AUTHOR = "knot.tools.author";
const ORDERS = "plugin.shop.orders";

describe("event sinks", () => {
  let t: TestApp;
  let marker: string;
  let alice: string, bob: string, admin: string;

  const saveSink = (token: string, name: string, events: string[], code = RECORDING_SINK(name)) =>
    request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name, kind: "sink", events, code }) });
  const saveTool = (token: string, name: string) =>
    request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name, code: "export default () => 1;\n" }) });
  const deliveries = async (token: string, id: string) => (await request(`${t.url}/api/sinks/${id}/deliveries`, token)).body.deliveries as any[];
  const settled = (token: string, id: string, count: number, status = "delivered") =>
    waitFor(async () => (await deliveries(token, id)).filter((d) => d.status === status).length >= count, 20_000, `${count} ${status} deliveries`);

  before(async () => {
    const root = tempDir();
    marker = path.join(tempDir(), "events.log");
    writeShop(root, marker);
    t = await startApp({ pluginsDir: root, config: { plugins: { shop: { marker } }, sinks: { maxAttempts: 3, backoffMs: 50, maxBackoffMs: 200, pollMs: 50, retentionDays: 30 } } });
    alice = (await t.userWithToken("alice", { grants: [AUTHOR, ORDERS] })).token;
    bob = (await t.userWithToken("bob", { grants: [AUTHOR] })).token;
    admin = (await t.userWithToken("root", { admin: true })).token;
  });
  after(() => t.close());

  it("refuses at save a sink subscribing to an unknown event type, naming it", async () => {
    const res = await saveSink(alice, "bad", ["tool.saved", "nope.event"]);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_ARGUMENT");
    assert.match(res.body.error, /events\[1\]: unknown event type "nope\.event"/);
    assert.equal((await saveSink(alice, "bad2", [])).status, 400);
  });

  it("runs a sink as its owner on tool.saved, in order, for the owner's tools only", async () => {
    const sink = await saveSink(alice, "on_save", ["tool.saved"]);
    assert.equal(sink.status, 201, JSON.stringify(sink.body));
    assert.equal(sink.body.tool.kind, "sink");
    assert.deepEqual(sink.body.tool.events, ["tool.saved"]);
    for (const name of ["one", "two", "three"]) assert.equal((await saveTool(alice, name)).status, 201);
    assert.equal((await saveTool(bob, "bobs")).status, 201);
    await settled(alice, sink.body.tool.id, 4);
    const mine = records(marker).filter((r) => r.sink === "on_save");
    // Saving the sink itself is the owner's first tool.saved.
    assert.deepEqual(mine.map((r) => [r.by, r.type, r.data.name]), [["alice", "tool.saved", "on_save"], ["alice", "tool.saved", "one"], ["alice", "tool.saved", "two"], ["alice", "tool.saved", "three"]]);
    // The default export got the event itself, not a request; knot:identity answers as the owner.
    for (const r of mine) {
      assert.deepEqual(r.keys, ["at", "data", "id", "type"]);
      assert.match(r.id, /\S/);
      assert.ok(!Number.isNaN(Date.parse(r.at)), `event.at is a timestamp: ${r.at}`);
      assert.equal(r.identity, "alice");
    }
    assert.equal(new Set(mine.map((r) => r.id)).size, mine.length);
    assert.equal((await deliveries(alice, sink.body.tool.id)).length, 4, "bob's save is not alice's event");
    // Each run is audited under the sink's kind and owner (src/audit/tool-names.ts).
    const rows = await t.app.store.queryAudit({ tool: "sink:alice/on_save", limit: 10 });
    assert.deepEqual(rows.map((row) => row.outcome), ["ok", "ok", "ok", "ok"]);
  });

  it("plugin events reach only sinks whose owner holds the declared permission", async () => {
    const aliceSink = await saveSink(alice, "orders_a", ["plugin.shop.order_placed"]);
    const bobSink = await saveSink(bob, "orders_b", ["plugin.shop.order_placed"]);
    assert.equal(bobSink.status, 201);
    assert.equal((await request(`${t.url}/plugins/shop/place?item=lamp`, bob)).status, 200);
    await settled(alice, aliceSink.body.tool.id, 1);
    const got = records(marker).filter((r) => r.sink.startsWith("orders_"));
    assert.deepEqual(got.map((r) => [r.sink, r.by, r.data.item]), [["orders_a", "alice", "lamp"]]);
    assert.deepEqual(await deliveries(bob, bobSink.body.tool.id), []);
  });

  it("a sink's own effects never re-trigger it", async () => {
    // This sink places an order whenever an order is placed: without the guard it would loop forever.
    const code = `import { call } from "knot:plugin";\nexport default async (event) => { await call("shop", "record", { sink: "echoer", type: event.type }); await call("shop", "place", { item: "again" }); };\n`;
    const sink = await saveSink(alice, "echoer", ["plugin.shop.order_placed"], code);
    assert.equal((await request(`${t.url}/plugins/shop/place?item=first`, bob)).status, 200);
    await settled(alice, sink.body.tool.id, 1);
    await new Promise((r) => setTimeout(r, 500));
    await t.app.sinks.drain();
    assert.equal(records(marker).filter((r) => r.sink === "echoer").length, 1);
    assert.equal((await deliveries(alice, sink.body.tool.id)).length, 1);
  });

  it("grant.changed reaches admins' sinks only", async () => {
    const adminSink = await saveSink(admin, "grants_admin", ["grant.changed"]);
    const aliceSink = await saveSink(alice, "grants_alice", ["grant.changed"]);
    const bobUser = (await t.app.store.getUserByName("bob"))!;
    const res = await request(`${t.url}/api/grants`, admin, { method: "POST", body: JSON.stringify({ subject: `user:${bobUser.id}`, permission: ORDERS }) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await settled(admin, adminSink.body.tool.id, 1);
    const got = records(marker).filter((r) => r.sink.startsWith("grants_"));
    assert.deepEqual(got.map((r) => [r.sink, r.by, r.data.change, r.data.permission]), [["grants_admin", "root", "granted", ORDERS]]);
    assert.deepEqual(await deliveries(alice, aliceSink.body.tool.id), []);
  });

  it("a sink that throws is failed, retried with backoff, then dead with the last error; the dispatcher goes on", async () => {
    const sink = await saveSink(bob, "thrower", ["tool.saved"], `export default () => { throw new Error("sink broke on purpose"); };\n`);
    const later = await saveSink(bob, "after_thrower", ["tool.deleted"]);
    const tool = await saveTool(bob, "trigger");
    // Its own save, after_thrower's save and trigger's save: each dies in turn (in order per sink).
    await settled(bob, sink.body.tool.id, 3, "dead");
    for (const row of await deliveries(bob, sink.body.tool.id)) {
      assert.equal(row.attempts, 3);
      assert.equal(row.type, "tool.saved");
      assert.match(row.lastError, /sink broke on purpose/);
    }
    assert.equal((await request(`${t.url}/api/tools/${tool.body.tool.id}`, bob, { method: "DELETE" })).status, 200);
    await settled(bob, later.body.tool.id, 1);
    // owner and admins only
    assert.equal((await request(`${t.url}/api/sinks/${sink.body.tool.id}/deliveries`, alice)).status, 404);
    assert.equal((await request(`${t.url}/api/sinks/${sink.body.tool.id}/deliveries`, admin)).status, 200);
    // A limit that is not a whole number from 1 is a clear 400 naming it (it reached SQL: 500).
    assert.equal((await request(`${t.url}/api/sinks/${sink.body.tool.id}/deliveries?limit=2`, bob)).body.deliveries.length, 2);
    for (const bad of ["1.5", "0", "-3", "lots"]) {
      const res = await request(`${t.url}/api/sinks/${sink.body.tool.id}/deliveries?limit=${bad}`, bob);
      assert.equal(res.status, 400, `${bad}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.where, "limit");
    }
  });

  it("tool.run is told when a saved tool's run finished, with its outcome", async () => {
    const sink = await saveSink(alice, "on_run", ["tool.run"]);
    const tool = await saveTool(alice, "runme");
    const ran = await request(`${t.url}/api/tools/${tool.body.tool.id}/run`, alice, { method: "POST", body: "{}" });
    assert.equal(ran.body.ok, true, JSON.stringify(ran.body));
    await settled(alice, sink.body.tool.id, 1);
    const [got] = records(marker).filter((r) => r.sink === "on_run");
    assert.deepEqual([got!.type, got!.data.name, got!.data.outcome, got!.data.by], ["tool.run", "runme", "ok", "alice"]);
  });

  it("the editor's starter sink runs as written (it reads the event it is given)", async () => {
    // Loaded at run time: ui/ is type-checked by its own tsconfig (DOM types), not the server's.
    const starter = new URL("../../ui/src/editor/starter-code.ts", import.meta.url).href;
    const { starterCode } = (await import(starter)) as { starterCode: (kind: "sink") => string };
    // A wrong shape would throw here: the starter destructures the argument as the event.
    const code = starterCode("sink").replace("console.log(", "if (typeof type !== \"string\" || typeof id !== \"string\" || data?.name !== \"starter\") throw new Error(\"not an event\");\n  console.log(");
    const sink = await saveSink(bob, "starter", ["tool.saved"], code);
    assert.equal(sink.status, 201, JSON.stringify(sink.body));
    await settled(bob, sink.body.tool.id, 1);
    const [row] = await deliveries(bob, sink.body.tool.id);
    assert.deepEqual([row.type, row.status, row.lastError ?? null], ["tool.saved", "delivered", null]);
  });
  it("a change that committed is answered as done even when its event cannot be stored (the failure is logged)", async () => {
    await saveSink(bob, "hears_saves", ["tool.saved"]);
    // Another connection makes every insert into the outbox fail, as a full or broken disk would.
    const side = new DatabaseSync(path.join(t.dir, "knot.db"));
    side.exec("CREATE TRIGGER outbox_down BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'the outbox is unavailable'); END");
    try {
      const saved = await saveTool(bob, "still_saved");
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      assert.equal((await request(`${t.url}/api/tools/${saved.body.tool.id}`, bob)).status, 200);
    } finally {
      side.exec("DROP TRIGGER outbox_down");
      side.close();
    }
  });
});
