import assert from "node:assert/strict";
import { test } from "node:test";
import { forEachStore } from "./helpers.ts";

const code = (promise: Promise<unknown>, expected: string) =>
  assert.rejects(promise, (error: { code?: string }) => error.code === expected);

forEachStore((backend) => {
  test("users: create, look up, list, count, admin flag", async () => {
    const { store } = await backend.open();
    assert.equal(await store.countUsers(), 0);
    const zoe = await store.createUser({ name: "zoe", isAdmin: false });
    const ada = await store.createUser({ name: "ada", isAdmin: true });
    assert.match(ada.id, /^[0-9a-f-]{36}$/);
    assert.notEqual(ada.id, zoe.id);
    assert.equal(ada.isAdmin, true);
    assert.ok(Object.isFrozen(ada));
    assert.deepEqual(await store.getUser(ada.id), ada);
    assert.deepEqual(await store.getUserByName("zoe"), zoe);
    assert.equal(await store.getUser("nobody"), null);
    assert.equal(await store.getUserByName("nobody"), null);
    assert.deepEqual((await store.listUsers()).map((user) => user.name), ["ada", "zoe"]);
    assert.equal(await store.countUsers(), 2);

    await store.setUserAdmin(zoe.id, true);
    assert.equal((await store.getUser(zoe.id))?.isAdmin, true);
    await store.setUserAdmin(zoe.id, false);
    assert.equal((await store.getUser(zoe.id))?.isAdmin, false);
    await code(store.setUserAdmin("nobody", true), "NOT_FOUND");
  });

  test("users: a duplicate name is a CONFLICT", async () => {
    const { store } = await backend.open();
    await store.createUser({ name: "ada", isAdmin: false });
    await assert.rejects(store.createUser({ name: "ada", isAdmin: true }), (error: { code?: string; message: string }) => {
      assert.equal(error.code, "CONFLICT");
      assert.match(error.message, /ada/);
      return true;
    });
    assert.equal(await store.countUsers(), 1);
  });

  test("groups: memberships are idempotent, listed, and removable", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const bob = await store.createUser({ name: "bob", isAdmin: false });
    await store.addMembership(bob.id, "ops");
    await store.addMembership(ada.id, "ops");
    await store.addMembership(ada.id, "ops");
    await store.addMembership(ada.id, "dev");
    assert.deepEqual(await store.groupsOf(ada.id), ["dev", "ops"]);
    assert.deepEqual(await store.listGroups(), [
      { name: "dev", members: [ada.id] },
      { name: "ops", members: [ada.id, bob.id] },
    ]);
    await store.removeMembership(ada.id, "ops");
    await store.removeMembership(ada.id, "never-joined");
    assert.deepEqual(await store.groupsOf(ada.id), ["dev"]);
    assert.deepEqual(await store.groupsOf("nobody"), []);
    await code(store.addMembership("nobody", "ops"), "NOT_FOUND");
  });

  test("grants: direct and group grants union into permissionsOf, sorted and unique", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const bob = await store.createUser({ name: "bob", isAdmin: false });
    await store.addMembership(ada.id, "ops");
    await store.addMembership(ada.id, "dev");
    await store.grant({ subject: { kind: "user", userId: ada.id }, permission: "plugin.metrics.view" });
    await store.grant({ subject: { kind: "user", userId: ada.id }, permission: "plugin.metrics.view" }); // idempotent
    await store.grant({ subject: { kind: "group", group: "ops" }, permission: "plugin.metrics.export" });
    await store.grant({ subject: { kind: "group", group: "dev" }, permission: "plugin.metrics.view" });
    await store.grant({ subject: { kind: "group", group: "dev" }, permission: "plugin.build.run" });
    await store.grant({ subject: { kind: "group", group: "finance" }, permission: "plugin.ledger.read" });

    assert.deepEqual(await store.permissionsOf(ada.id), ["plugin.build.run", "plugin.metrics.export", "plugin.metrics.view"]);
    assert.deepEqual(await store.permissionsOf(bob.id), []);
    assert.equal((await store.listGrants()).length, 5);
    assert.deepEqual((await store.listGrants())[0], { subject: { kind: "group", group: "dev" }, permission: "plugin.build.run" });

    await store.removeMembership(ada.id, "ops");
    assert.deepEqual(await store.permissionsOf(ada.id), ["plugin.build.run", "plugin.metrics.view"]);

    assert.equal(await store.revoke({ subject: { kind: "group", group: "dev" }, permission: "plugin.metrics.view" }), true);
    assert.equal(await store.revoke({ subject: { kind: "group", group: "dev" }, permission: "plugin.metrics.view" }), false);
    // still granted directly
    assert.deepEqual(await store.permissionsOf(ada.id), ["plugin.build.run", "plugin.metrics.view"]);
    assert.equal(await store.revoke({ subject: { kind: "user", userId: ada.id }, permission: "plugin.metrics.view" }), true);
    assert.deepEqual(await store.permissionsOf(ada.id), ["plugin.build.run"]);

    // A group grant never leaks to a user grant of the same name and vice versa.
    await store.grant({ subject: { kind: "group", group: bob.id }, permission: "plugin.x.y" });
    assert.deepEqual(await store.permissionsOf(bob.id), []);
  });

  test("grants: granting to an unknown user is NOT_FOUND", async () => {
    const { store } = await backend.open();
    await code(store.grant({ subject: { kind: "user", userId: "nobody" }, permission: "p" }), "NOT_FOUND");
    assert.deepEqual(await store.listGrants(), []);
  });
});
