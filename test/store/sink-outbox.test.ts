// The sinks' outbox on both backends: a sink keeps its kind and events (and in its versions), events
// fan out to deliveries in one write, claims take each sink's oldest open delivery only, settling
// records attempts and errors, and deleting a sink deletes its deliveries.
import assert from "node:assert/strict";
import { test } from "node:test";
import { forEachStore, toolInput } from "./helpers.ts";

forEachStore((backend) => {
  test("sinks round-trip and their deliveries are claimed in order per sink", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const sink = await store.createUserTool(ada.id, toolInput({ name: "watch", kind: "sink", events: ["tool.saved", "tool.run"] }));
    assert.deepEqual([sink.kind, sink.events], ["sink", ["tool.saved", "tool.run"]]);
    const other = await store.createUserTool(ada.id, toolInput({ name: "watch2", kind: "sink", events: ["tool.run"] }));
    await store.createUserTool(ada.id, toolInput({ name: "plain" }));
    await store.createUserTool(ada.id, toolInput({ name: "off", kind: "sink", events: ["tool.run"], active: false }));
    assert.deepEqual((await store.listUserToolVersions(sink.id))[0]?.tool.events, ["tool.saved", "tool.run"]);
    assert.deepEqual((await store.listSinks()).map((s) => s.name).sort(), ["watch", "watch2"]);

    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    await store.appendEvent({ id: "e1", type: "tool.run", at: at(1), data: { n: 1 } }, [sink.id, other.id]);
    await store.appendEvent({ id: "e2", type: "tool.run", at: at(2), data: { n: 2 } }, [sink.id]);
    const now = at(10);
    const first = await store.claimDeliveries(now, at(100), 10);
    assert.deepEqual(first.map((d) => [d.sinkId === sink.id ? "watch" : "watch2", d.event.id, d.event.data]), [["watch", "e1", { n: 1 }], ["watch2", "e1", { n: 1 }]]);
    assert.deepEqual(await store.claimDeliveries(now, at(100), 10), [], "leased, and e2 waits behind e1");

    const mine = first.find((d) => d.sinkId === sink.id)!;
    await store.settleDelivery(mine.id, { status: "failed", error: "boom", nextAttemptAt: at(20) });
    assert.deepEqual(await store.claimDeliveries(at(15), at(100), 10), [], "e1 is backing off and still blocks e2");
    const retry = await store.claimDeliveries(at(21), at(100), 10);
    assert.deepEqual(retry.map((d) => [d.event.id, d.attempts, d.lastError]), [["e1", 1, "boom"]]);
    await store.settleDelivery(retry[0]!.id, { status: "dead", error: "boom again", nextAttemptAt: at(30) });
    assert.deepEqual((await store.claimDeliveries(at(22), at(100), 10)).map((d) => d.event.id), ["e2"], "a dead delivery no longer blocks");

    // A lease that expired and was taken by another claimer: the first holder's late settlement
    // changes nothing (else it would clear the new lease and let the sink's next delivery run
    // beside this one); the new holder's counts.
    const taken = (await store.claimDeliveries(at(101), at(140), 10)).find((d) => d.event.id === "e2")!;
    assert.equal(taken.leaseUntil, at(140));
    const retaken = (await store.claimDeliveries(at(141), at(200), 10)).find((d) => d.event.id === "e2")!;
    assert.equal(await store.settleDelivery(taken.id, { status: "failed", error: "late", nextAttemptAt: at(42) }, taken.leaseUntil), false);
    assert.deepEqual((await store.listDeliveries(sink.id, 10)).map((d) => [d.eventId, d.status, d.attempts]), [["e2", "pending", 0], ["e1", "dead", 2]]);
    assert.equal(await store.settleDelivery(retaken.id, { status: "failed", error: "late", nextAttemptAt: at(42) }, retaken.leaseUntil), true);
    await store.settleDelivery(retaken.id, { status: "deferred", error: "RATE_LIMITED: later", nextAttemptAt: at(43) });
    assert.deepEqual((await store.listDeliveries(sink.id, 10)).map((d) => [d.eventId, d.status, d.attempts, d.lastError]), [["e2", "failed", 1, "RATE_LIMITED: later"], ["e1", "dead", 2, "boom again"]]);
    await store.settleDelivery(retaken.id, { status: "delivered" });

    const listed = await store.listDeliveries(sink.id, 10);
    assert.deepEqual(listed.map((d) => [d.eventId, d.status, d.attempts, d.lastError]), [["e2", "delivered", 2, null], ["e1", "dead", 2, "boom again"]]);
    // Retention: settled rows last changed before the cut go, pending ones stay, and so do the
    // events they need; an event no delivery refers to any more goes too.
    await store.appendEvent({ id: "e3", type: "tool.run", at: at(50), data: { n: 3 } }, [other.id]);
    const removed = await store.pruneOutbox("9999-01-01T00:00:00.000Z");
    assert.equal(removed, 3, "watch's two settled deliveries, and event e2 (e1 still waits for watch2)");
    assert.deepEqual(await store.listDeliveries(sink.id, 10), []);
    assert.deepEqual((await store.listDeliveries(other.id, 10)).map((d) => [d.eventId, d.status]), [["e3", "pending"], ["e1", "pending"]]);
    assert.equal(await store.pruneOutbox("2000-01-01T00:00:00.000Z"), 0, "nothing is older than the cut");
    assert.equal(await store.deleteUserTool(sink.id), true);
    assert.deepEqual(await store.listDeliveries(sink.id, 10), []);
  });
});

forEachStore((backend) => {
  // Plugins emit any JSON: the outbox must hand sinks exactly what was emitted on either backend
  // (PostgreSQL's jsonb would refuse \u0000 and sort keys; its json keeps the text as written).
  test("event data and causes come back exactly as written: U+0000, key order, nesting", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const sink = await store.createUserTool(ada.id, toolInput({ name: "watch", kind: "sink", events: ["tool.run", "tool.saved"] }));
    assert.deepEqual((await store.listSinks())[0]?.events, ["tool.run", "tool.saved"]);
    const data = { zeta: 1, a: 2, text: "a\u0000b", nested: { y: [{ b: 1, a: 2 }], "": "\u0000", x: "é😀" }, aa: 2, "1": "digit key" };
    await store.appendEvent({ id: "e1", type: "tool.run", at: "2026-01-01T00:00:01.000Z", data, causedBy: ["s2", "s1"] }, [sink.id]);
    const [claimed] = await store.claimDeliveries("2026-01-01T00:00:10.000Z", "2026-01-01T00:01:00.000Z", 10);
    assert.deepEqual(claimed?.event.data, data);
    assert.equal(JSON.stringify(claimed?.event.data), JSON.stringify(data), "same keys in the same order");
    assert.deepEqual(claimed?.event.causedBy, ["s2", "s1"]);
  });

  // JSON.stringify writes an unpaired surrogate as the escape \ud800: PostgreSQL's jsonb refused
  // it (an INTERNAL error), its json keeps the escape as SQLite's JSON text does.
  test("event data with an unpaired surrogate comes back as written", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const sink = await store.createUserTool(ada.id, toolInput({ name: "watch", kind: "sink", events: ["tool.run"] }));
    const data = { high: "\ud800", low: "x\udc00", swapped: "\udc00\ud800" };
    await store.appendEvent({ id: "e1", type: "tool.run", at: "2026-01-01T00:00:01.000Z", data }, [sink.id]);
    const [claimed] = await store.claimDeliveries("2026-01-01T00:00:10.000Z", "2026-01-01T00:01:00.000Z", 10);
    assert.deepEqual(claimed?.event.data, data);
  });
});
