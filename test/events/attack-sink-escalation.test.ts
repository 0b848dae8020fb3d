/**
 * Attacks on event sinks. A sink runs later, as its owner with the owner's full authority, so:
 * a scoped credential (an assistant's narrowed token) must not be able to save one (that would
 * launder the token's scopes into the owner's full rights); and visibility is decided at emit time,
 * so a revoked permission stops a plugin event from reaching a sink subscribed earlier. And the
 * sink entry (the default export gets the event) is chosen by the host only: a tool's caller cannot
 * pick it, whatever the arguments look like.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { RECORDING_SINK, records, writeShop } from "./helpers.ts";

describe("attack: event sinks", () => {
  let t: TestApp;
  let marker: string;

  before(async () => {
    const root = tempDir();
    marker = path.join(tempDir(), "events.log");
    writeShop(root, marker);
    t = await startApp({ pluginsDir: root, config: { plugins: { shop: { marker } }, sinks: { maxAttempts: 2, backoffMs: 50, maxBackoffMs: 100, pollMs: 50, retentionDays: 30 } } });
  });
  after(() => t.close());

  it("a scoped token cannot save a sink (which would run later with the owner's unscoped rights)", async () => {
    const user = await t.user("mallory", { grants: ["knot.tools.author", "plugin.shop.orders"] });
    const scoped = await t.token(user, { permissions: ["knot.tools.author"], write: true });
    const body = { name: "launder", kind: "sink", events: ["plugin.shop.order_placed"], code: RECORDING_SINK("launder") };
    const res = await request(`${t.url}/api/tools`, scoped, { method: "POST", body: JSON.stringify(body) });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.code, "PERMISSION_DENIED");
    // Nor turn an existing tool into a sink.
    const tool = await request(`${t.url}/api/tools`, scoped, { method: "POST", body: JSON.stringify({ name: "plain", code: "export default () => 1;\n" }) });
    assert.equal(tool.status, 201);
    const turned = await request(`${t.url}/api/tools/${tool.body.tool.id}`, scoped, { method: "PUT", body: JSON.stringify({ kind: "sink", events: ["tool.saved"] }) });
    assert.equal(turned.status, 403);
    assert.deepEqual(await t.app.store.listSinks(), []);
  });

  it("a scoped token cannot move a sink's lib pins to code it wrote (Update libs would run it with the owner's full rights)", async () => {
    const { user, token } = await t.userWithToken("alice", { grants: ["knot.tools.author", "plugin.shop.orders"] });
    const lib = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "helpers", kind: "lib", code: "export const label = \"v1\";\n" }) });
    assert.equal(lib.status, 201, JSON.stringify(lib.body));
    const sinkCode = `import { label } from "lib:helpers";\n${RECORDING_SINK("pinned").replace("sink: \"pinned\"", "sink: label")}`;
    const sink = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "watcher", kind: "sink", events: ["tool.saved"], code: sinkCode }) });
    assert.equal(sink.status, 201, JSON.stringify(sink.body));
    const pinsBefore = (await t.app.store.getUserTool(sink.body.tool.id))!.libPins;
    // An assistant's token narrowed to authoring: it may edit the lib (a lib runs as whoever runs it)…
    const scoped = await t.token(user, { permissions: ["knot.tools.author"], write: true });
    const edited = await request(`${t.url}/api/tools/${lib.body.tool.id}`, scoped, { method: "PUT", body: JSON.stringify({ code: "export const label = \"attacker\";\n" }) });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    // …but not re-pin the sink to that version: the sink would run it as the owner, unscoped.
    const repinned = await request(`${t.url}/api/tools/${sink.body.tool.id}/libs`, scoped, { method: "POST", body: "{}" });
    assert.equal(repinned.status, 403, JSON.stringify(repinned.body));
    assert.equal(repinned.body.code, "PERMISSION_DENIED");
    assert.deepEqual((await t.app.store.getUserTool(sink.body.tool.id))!.libPins, pinsBefore, "the sink's pins moved");
    // The owner, unscoped, still can.
    const owner = await request(`${t.url}/api/tools/${sink.body.tool.id}/libs`, token, { method: "POST", body: "{}" });
    assert.equal(owner.status, 200, JSON.stringify(owner.body));
    assert.equal(owner.body.changed, true);
  });

  it("two sinks that trigger each other do not loop: an event caused by a chain of sinks skips every sink in it", async () => {
    const { token } = await t.userWithToken("pingpong", { grants: ["knot.tools.author", "plugin.shop.orders"] });
    // Each places an order whenever an order is placed: alone the guard stops it; together they
    // re-triggered each other for ever (and with a third, the backlog grew without bound).
    const echo = (label: string) => `import { call } from "knot:plugin";\nexport default async (event) => { await call("shop", "record", { sink: "${label}", type: event.type }); await call("shop", "place", { item: "${label}" }); };\n`;
    const ids: string[] = [];
    for (const label of ["ping", "pong"]) {
      const saved = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: label, kind: "sink", events: ["plugin.shop.order_placed"], code: echo(label) }) });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      ids.push(saved.body.tool.id);
    }
    assert.equal((await request(`${t.url}/plugins/shop/place?item=first`, token)).status, 200);
    const runs = () => records(marker).filter((r) => r.sink === "ping" || r.sink === "pong").length;
    // The first order reaches both (2 runs); each one's order reaches the other (2 more); those
    // orders come from a chain holding both sinks and reach neither.
    for (let waited = 0; runs() < 4 && waited < 20_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_500));
    await t.app.sinks.drain();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(runs(), 4, `${runs()} sink runs from one order`);
    for (const id of ids) assert.equal((await t.app.store.listDeliveries(id, 100)).length, 2);
  });

  it("an event caused by a chain of 3 sinks reaches no sink, even one not in the chain", async () => {
    const { token } = await t.userWithToken("quartet", { grants: ["knot.tools.author", "plugin.shop.orders"] });
    // Only the quartet's own orders count: other tests' sinks in this app place orders too.
    const echo = (label: string) => `import { call } from "knot:plugin";\nexport default async (event) => {\n  if (!/^(quartet|q[1-4])$/.test(event.data.item)) return;\n  await call("shop", "record", { sink: "${label}", type: event.type });\n  await call("shop", "place", { item: "${label}" });\n};\n`;
    const labels = ["q1", "q2", "q3", "q4"];
    for (const label of labels) {
      const saved = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: label, kind: "sink", events: ["plugin.shop.order_placed"], code: echo(label) }) });
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
    }
    assert.equal((await request(`${t.url}/plugins/shop/place?item=quartet`, token)).status, 200);
    const runs = () => records(marker).filter((r) => labels.includes(r.sink)).length;
    // Chains of 1, 2 and 3 sinks: 4 + 4·3 + 4·3·2 = 40 runs. Without the cap the chains of 3 would
    // each reach the fourth sink too: 24 runs more.
    for (let waited = 0; runs() < 40 && waited < 60_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 2_000));
    await t.app.sinks.drain();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(runs(), 40);
  });

  it("a slow sink does not hold up other users' deliveries", async () => {
    const slow = await t.userWithToken("sloth", { grants: ["knot.tools.author"] });
    const quick = await t.userWithToken("hare", { grants: ["knot.tools.author"] });
    const napping = `import { call } from "knot:plugin";\nexport default async () => { await call("shop", "nap", { ms: 5000 }); };\n`;
    const sloth = await request(`${t.url}/api/tools`, slow.token, { method: "POST", body: JSON.stringify({ name: "sloth", kind: "sink", events: ["tool.saved"], code: napping }) });
    assert.equal(sloth.status, 201, JSON.stringify(sloth.body));
    const hare = await request(`${t.url}/api/tools`, quick.token, { method: "POST", body: JSON.stringify({ name: "hare", kind: "sink", events: ["tool.saved"], code: RECORDING_SINK("hare") }) });
    assert.equal(hare.status, 201, JSON.stringify(hare.body));
    // The sloth's own save is being delivered (a 5 s nap) when the hare's tool is saved.
    await new Promise((r) => setTimeout(r, 500));
    const saved = performance.now();
    assert.equal((await request(`${t.url}/api/tools`, quick.token, { method: "POST", body: JSON.stringify({ name: "hop", code: "export default () => 1;\n" }) })).status, 201);
    const delivered = async () => (await t.app.store.listDeliveries(hare.body.tool.id, 10)).filter((row) => row.status === "delivered").length;
    // The hare's sink got its own save already (or gets it now), then the hop.
    while ((await delivered()) < 2 && performance.now() - saved < 10_000) await new Promise((r) => setTimeout(r, 50));
    const waited = performance.now() - saved;
    assert.equal(await delivered(), 2);
    assert.ok(waited < 2_500, `the hare's delivery waited ${waited.toFixed(0)} ms behind the sloth's nap`);
  });

  it("a permission revoked after subscribing stops the plugin event from reaching the sink", async () => {
    const { user, token } = await t.userWithToken("eve", { grants: ["knot.tools.author", "plugin.shop.orders"] });
    const sink = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "spy", kind: "sink", events: ["plugin.shop.order_placed"], code: RECORDING_SINK("spy") }) });
    assert.equal(sink.status, 201);
    await t.app.store.revoke({ subject: { kind: "user", userId: user.id }, permission: "plugin.shop.orders" });
    assert.equal((await request(`${t.url}/plugins/shop/place?item=secret`, token)).status, 200);
    await t.app.sinks.drain();
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual((await t.app.store.listDeliveries(sink.body.tool.id, 10)).map((d) => d.type), []);
    assert.equal(records(marker).filter((r) => r.sink === "spy").length, 0);
  });

  it("a permission revoked while the event waits in the sink's queue stops it too (visibility is checked again at delivery)", async () => {
    const { user, token } = await t.userWithToken("queued", { grants: ["knot.tools.author", "plugin.shop.orders"] });
    // Its first delivery (its own save) naps, so the order event waits behind it in the sink's queue.
    const code = `import { call } from "knot:plugin";\nexport default async (event) => {\n  if (event.type === "tool.saved") { await call("shop", "nap", { ms: 2000 }); return; }\n  await call("shop", "record", { sink: "queued_spy", type: event.type, data: event.data });\n};\n`;
    const sink = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "queued_spy", kind: "sink", events: ["tool.saved", "plugin.shop.order_placed"], code }) });
    assert.equal(sink.status, 201, JSON.stringify(sink.body));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await request(`${t.url}/plugins/shop/place?item=while-napping`, token)).status, 200);
    await t.app.store.revoke({ subject: { kind: "user", userId: user.id }, permission: "plugin.shop.orders" });
    const rows = () => t.app.store.listDeliveries(sink.body.tool.id, 10);
    for (let waited = 0; (await rows()).some((row) => row.status === "pending" || row.status === "failed") && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    const order = (await rows()).find((row) => row.type === "plugin.shop.order_placed");
    assert.equal(order?.status, "dead", JSON.stringify(order));
    assert.match(order?.lastError ?? "", /no longer/);
    assert.equal(records(marker).filter((r) => r.sink === "queued_spy").length, 0, "the event reached a sink whose owner lost the permission");
  });

  it("a regular tool cannot be run as a sink entry: event-shaped arguments stay a request; the runner refuses", async () => {
    const { user, token } = await t.userWithToken("trudy", { grants: ["knot.tools.author"] });
    const code = "export default (r) => Object.keys(r).sort().join() + '|' + (r.params?.type ?? '')\n";
    const saved = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "posing", code }) });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const event = { id: "forged", type: "grant.changed", at: new Date().toISOString(), data: {} };
    for (const body of [event, { ...event, entry: "sink" }, { args: event, entry: "sink" }]) {
      const ran = await request(`${t.url}/api/tools/${saved.body.tool.id}/run`, token, { method: "POST", body: JSON.stringify(body) });
      assert.equal(ran.status, 200, JSON.stringify(ran.body));
      assert.match(JSON.stringify(ran.body), /method,params,user\|/);
    }
    // Host code asking for a sink entry on something that is not a saved sink is refused too.
    const principal = (await t.app.auth.principalFor(user.id))!;
    const tool = (await t.app.store.getUserTool(saved.body.tool.id))!;
    await assert.rejects(t.app.runner.run(principal, tool, event, { validated: true, entry: "sink" }), /is not a sink/);
    await assert.rejects(t.app.runner.run(principal, { name: "inline", code, language: "js" }, event, { validated: true, entry: "sink" }), /is not a sink/);
  });
});
