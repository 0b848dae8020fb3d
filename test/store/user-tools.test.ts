import assert from "node:assert/strict";
import { test } from "node:test";
import { forEachStore, toolInput } from "./helpers.ts";

const hasCode = (expected: string, pattern?: RegExp) => (error: { code?: string; message: string }) => {
  assert.equal(error.code, expected);
  if (pattern) assert.match(error.message, pattern);
  return true;
};

forEachStore((backend) => {
  test("create writes version 1; get and find by name return it", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const tool = await store.createUserTool(ada.id, toolInput({ readOnly: true }));
    assert.equal(tool.version, 1);
    assert.equal(tool.ownerId, ada.id);
    assert.equal(tool.readOnly, true);
    assert.equal(tool.destructive, false);
    assert.equal(tool.active, true);
    assert.deepEqual(tool.parameters, [{ name: "who", type: "string", required: true }]);
    assert.equal(tool.createdAt, tool.updatedAt);
    assert.ok(Object.isFrozen(tool) && Object.isFrozen(tool.parameters) && Object.isFrozen(tool.parameters[0]));
    assert.deepEqual(await store.getUserTool(tool.id), tool);
    assert.deepEqual(await store.findUserToolByName(ada.id, "hello"), tool);
    assert.equal(await store.findUserToolByName(ada.id, "other"), null);
    assert.equal(await store.getUserTool("nope"), null);

    const versions = await store.listUserToolVersions(tool.id);
    assert.equal(versions.length, 1);
    assert.equal(versions[0]?.version, 1);
    assert.equal(versions[0]?.savedBy, ada.id);
    assert.deepEqual(versions[0]?.tool, { ...toolInput(), readOnly: true, destructive: false, libPins: [] });
  });

  test("a duplicate (owner, name) is a CONFLICT naming the tool; another owner may reuse the name", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const bob = await store.createUser({ name: "bob", isAdmin: false });
    await store.createUserTool(ada.id, toolInput());
    await assert.rejects(store.createUserTool(ada.id, toolInput({ code: "other" })), hasCode("CONFLICT", /"hello"/));
    await store.createUserTool(bob.id, toolInput());
    await assert.rejects(store.createUserTool("nobody", toolInput()), hasCode("NOT_FOUND"));
  });

  test("update bumps the version, keeps every version, and checks expectedVersion", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const admin = await store.createUser({ name: "root", isAdmin: true });
    const v1 = await store.createUserTool(ada.id, toolInput());
    const v2 = await store.updateUserTool(v1.id, ada.id, toolInput({ code: "v2", description: "Second." }), 1);
    assert.equal(v2.version, 2);
    assert.equal(v2.code, "v2");
    assert.equal(v2.createdAt, v1.createdAt);
    assert.ok(v2.updatedAt > v1.updatedAt);
    const v3 = await store.updateUserTool(v1.id, admin.id, toolInput({ code: "v3", sharing: "@ops" })); // no check
    assert.equal(v3.version, 3);

    await assert.rejects(store.updateUserTool(v1.id, ada.id, toolInput({ code: "stale" }), 2), hasCode("CONFLICT", /version 3/));
    assert.equal((await store.getUserTool(v1.id))?.code, "v3");

    const versions = await store.listUserToolVersions(v1.id);
    assert.deepEqual(versions.map((version) => [version.version, version.tool.code, version.savedBy]), [
      [3, "v3", admin.id],
      [2, "v2", ada.id],
      [1, toolInput().code, ada.id],
    ]);
    assert.equal((await store.getUserToolVersion(v1.id, 2))?.tool.description, "Second.");
    assert.equal(await store.getUserToolVersion(v1.id, 9), null);
    // Past the column's range is no such version on both backends (PostgreSQL refused the parameter: 500).
    for (const version of [3_000_000_000, 2 ** 31, 0, -1]) assert.equal(await store.getUserToolVersion(v1.id, version), null, String(version));
    await assert.rejects(store.updateUserTool("nope", ada.id, toolInput()), hasCode("NOT_FOUND"));
  });

  test("renaming onto another of the owner's tools is a CONFLICT and changes nothing", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    await store.createUserTool(ada.id, toolInput({ name: "one" }));
    const two = await store.createUserTool(ada.id, toolInput({ name: "two" }));
    await assert.rejects(store.updateUserTool(two.id, ada.id, toolInput({ name: "one" })), hasCode("CONFLICT", /"one"/));
    assert.equal((await store.getUserTool(two.id))?.version, 1);
    assert.equal((await store.listUserToolVersions(two.id)).length, 1);
  });

  test("delete removes the tool and its versions", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const tool = await store.createUserTool(ada.id, toolInput());
    await store.updateUserTool(tool.id, ada.id, toolInput({ code: "v2" }));
    assert.equal(await store.deleteUserTool(tool.id), true);
    assert.equal(await store.deleteUserTool(tool.id), false);
    assert.equal(await store.getUserTool(tool.id), null);
    assert.deepEqual(await store.listUserToolVersions(tool.id), []);
    // the name is free again
    assert.equal((await store.createUserTool(ada.id, toolInput())).version, 1);
  });

  test("visibility: own tools first (inactive too), then others' active tools shared with everyone or my groups", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const bob = await store.createUser({ name: "bob", isAdmin: false });
    const cy = await store.createUser({ name: "cy", isAdmin: false });
    await store.createUserTool(ada.id, toolInput({ name: "zeta", sharing: "private" }));
    await store.createUserTool(ada.id, toolInput({ name: "alpha", sharing: "everyone", active: false }));
    await store.createUserTool(bob.id, toolInput({ name: "b-everyone", sharing: "everyone" }));
    await store.createUserTool(bob.id, toolInput({ name: "a-ops", sharing: "@ops", kind: "lib" }));
    await store.createUserTool(bob.id, toolInput({ name: "b-dev", sharing: "@dev" }));
    await store.createUserTool(bob.id, toolInput({ name: "b-private", sharing: "private" }));
    await store.createUserTool(bob.id, toolInput({ name: "b-inactive", sharing: "everyone", active: false }));
    await store.createUserTool(cy.id, toolInput({ name: "aa-cy", sharing: "everyone" }));
    await store.createUserTool(cy.id, toolInput({ name: "c-ops-like", sharing: "@ops-team" }));

    const names = async (userId: string, groups: string[]) =>
      (await store.listUserToolsVisibleTo(userId, groups)).map((tool) => tool.name);

    assert.deepEqual(await names(ada.id, ["ops"]), ["alpha", "zeta", "a-ops", "aa-cy", "b-everyone"]);
    assert.deepEqual(await names(ada.id, []), ["alpha", "zeta", "aa-cy", "b-everyone"]);
    assert.deepEqual(await names(ada.id, ["dev", "ops-team"]), ["alpha", "zeta", "aa-cy", "b-dev", "b-everyone", "c-ops-like"]);
    // the owner sees all their own, whatever the sharing or state; others' inactive/private never
    assert.deepEqual(await names(bob.id, []), ["a-ops", "b-dev", "b-everyone", "b-inactive", "b-private", "aa-cy"]);
    // a group named like a sharing keyword does not widen anything
    assert.deepEqual(await names(cy.id, ["private", "everyone", "@ops"]), ["aa-cy", "c-ops-like", "b-everyone"]);
  });

  test("sharing must be private, everyone, or @group", async () => {
    const { store } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    await assert.rejects(store.createUserTool(ada.id, toolInput({ sharing: "@" as "@x" })), /check constraint/i);
    await assert.rejects(store.createUserTool(ada.id, toolInput({ sharing: "public" as "everyone" })), /check constraint/i);
    assert.deepEqual(await store.listUserToolsVisibleTo(ada.id, []), []);
  });

  test("lib pins and the owner's name round-trip the same on both backends; each version keeps its pins", async () => {
    const { store, sql } = await backend.open();
    const ada = await store.createUser({ name: "ada", isAdmin: false });
    const lib = await store.createUserTool(ada.id, toolInput({ name: "fmt", kind: "lib" }));
    const pinsV1 = [{ name: "fmt", libId: lib.id, version: 1 }];
    const tool = await store.createUserTool(ada.id, toolInput({ name: "uses", libPins: pinsV1 }));
    assert.equal(tool.ownerName, "ada");
    assert.deepEqual(tool.libPins, pinsV1);
    assert.ok(Object.isFrozen(tool.libPins[0]));
    assert.deepEqual(await store.getUserTool(tool.id), tool);
    assert.deepEqual(await store.findUserToolByName(ada.id, "uses"), tool);
    assert.deepEqual((await store.listUserToolsVisibleTo(ada.id, [])).map((t) => [t.name, t.ownerName, t.libPins.length]), [["fmt", "ada", 0], ["uses", "ada", 1]]);
    const pinsV2 = [{ name: "fmt", libId: lib.id, version: 2 }, { name: "bob__x", libId: "other", version: 7 }];
    const v2 = await store.updateUserTool(tool.id, ada.id, toolInput({ name: "uses", libPins: pinsV2 }), 1);
    assert.deepEqual(v2.libPins, pinsV2);
    assert.deepEqual((await store.getUserToolVersion(tool.id, 1))?.tool.libPins, pinsV1, "the version snapshot keeps the pins it was saved with");
    assert.deepEqual((await store.getUserToolVersion(tool.id, 2))?.tool.libPins, pinsV2);
    // An update without pins clears them (the catalog always computes them; absent = none).
    const v3 = await store.updateUserTool(tool.id, ada.id, toolInput({ name: "uses" }));
    assert.deepEqual(v3.libPins, []);
    // Rows written before migration 5 read back with no pins.
    await sql("UPDATE user_tools SET lib_pins = '[]' WHERE id = ?", lib.id);
    assert.deepEqual((await store.getUserTool(lib.id))?.libPins, []);
  });
});
