/**
 * Attack: one author floods everyone's listing. Mallory shares hundreds of tools with everyone,
 * each with 256 KB of code. Listings carried every tool's code, read again after any write and
 * kept per user: ~150 MB of server memory per distinct user and 0.4–0.7 s of a blocked server
 * thread per listing (eighth round). Guarantees, in both stores: a listing carries no code, every
 * user's listing holds one shared record per tool version (not a copy per user), and an owner
 * keeps at most `maxOwned` tools, counted inside the insert's transaction.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { forEachStore, toolInput } from "./helpers.ts";

const BIG = `export default () => 1;\n/*${"x".repeat(200_000)}*/`;

forEachStore((backend) => {
  test("attack: a listing carries no code, and one record per shared tool version serves every user", async () => {
    const { store } = await backend.open();
    const mallory = await store.createUser({ name: "mallory", isAdmin: false });
    const alice = await store.createUser({ name: "alice", isAdmin: false });
    const bob = await store.createUser({ name: "bob", isAdmin: false });
    const shared = [];
    for (let i = 0; i < 3; i++) shared.push(await store.createUserTool(mallory.id, toolInput({ name: `flood_${i}`, code: BIG, sharing: "everyone" })));
    await store.createUserTool(alice.id, toolInput({ name: "mine" }));

    const aliceList = await store.listUserToolsVisibleTo(alice.id, []);
    const bobList = await store.listUserToolsVisibleTo(bob.id, []);
    assert.deepEqual(aliceList.map((t) => t.name), ["mine", "flood_0", "flood_1", "flood_2"]);
    for (const tool of [...aliceList, ...bobList]) assert.equal("code" in tool, false, `${tool.name} was listed with its code`);
    for (let i = 0; i < 3; i++) assert.equal(aliceList[i + 1], bobList[i], `flood_${i}: one record for both listings`);
    assert.ok(Object.isFrozen(bobList[0]) && Object.isFrozen(bobList[0]!.parameters), "shared records cannot be changed by a holder");

    // A save is a new version: a new record for it, the others still shared.
    await store.updateUserTool(shared[1]!.id, mallory.id, toolInput({ name: "flood_1", code: "export default () => 2;", sharing: "everyone" }));
    const again = await store.listUserToolsVisibleTo(bob.id, []);
    assert.equal(again[0], bobList[0]);
    assert.notEqual(again[1], bobList[1]);
    assert.equal(again[1]!.version, 2);
    assert.equal("code" in again[1]!, false);
    // The code of exactly a listed version stays readable from the history.
    assert.equal((await store.getUserToolVersion(shared[1]!.id, 1))?.tool.code, BIG);
  });

  test("attack: an owner keeps at most maxOwned tools, libs and sinks, even when saving many at once", async () => {
    const { store } = await backend.open();
    const mallory = await store.createUser({ name: "mallory", isAdmin: false });
    const alice = await store.createUser({ name: "alice", isAdmin: false });
    await store.createUserTool(mallory.id, toolInput({ name: "a" }), 2);
    await store.createUserTool(mallory.id, toolInput({ name: "b", kind: "lib" }), 2);
    await assert.rejects(store.createUserTool(mallory.id, toolInput({ name: "c" }), 2), (error: { code?: string; message: string }) => {
      assert.equal(error.code, "QUOTA_EXCEEDED");
      assert.match(error.message, /already have 2 tools, libs and sinks.*quotas\.user_tools/);
      return true;
    });
    assert.equal(await store.findUserToolByName(mallory.id, "c"), null, "nothing was saved");
    assert.ok(await store.createUserTool(alice.id, toolInput({ name: "c" }), 2), "the quota is per owner");

    // Saved at once (PostgreSQL: concurrent transactions on one pool): never more than the quota.
    const eve = await store.createUser({ name: "eve", isAdmin: false });
    const saves = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.createUserTool(eve.id, toolInput({ name: `t${i}` }), 3)));
    assert.equal(saves.filter((s) => s.status === "fulfilled").length, 3);
    for (const s of saves) if (s.status === "rejected") assert.equal((s.reason as { code?: string }).code, "QUOTA_EXCEEDED");
    assert.equal((await store.listUserToolsVisibleTo(eve.id, [])).length, 3);
    // Updates are not creations: an owner at the quota can still save their tools.
    const [first] = await store.listUserToolsVisibleTo(eve.id, []);
    assert.equal((await store.updateUserTool(first!.id, eve.id, toolInput({ name: first!.name, description: "changed" }))).version, 2);
  });
});
