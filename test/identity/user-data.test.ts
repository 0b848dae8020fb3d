/**
 * `toUserData` (src/identity/principal.ts) remembers the user data of a deep-frozen principal (the
 * authenticator's cached ones) and reads any other afresh, so a principal that can still change is
 * never answered from memory.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { deepFreeze } from "../../src/deep-freeze.ts";
import { toUserData, type Principal } from "../../src/identity/principal.ts";

const principal = (): Principal => ({
  user: { id: "u1", name: "ada", isAdmin: false, createdAt: "2026-01-01T00:00:00.000Z" } as Principal["user"],
  groups: ["ops"], granted: ["knot.mcp", "plugin.notes.read"], scopes: { permissions: ["knot.mcp", "plugin.*"], write: true } as Principal["scopes"], tokenId: "t1", via: "token",
});

test("a deep-frozen principal's user data is read once and is frozen", () => {
  const frozen = deepFreeze(principal());
  const first = toUserData(frozen);
  assert.equal(toUserData(frozen), first, "the same object for every request of the principal");
  assert.ok(Object.isFrozen(first) && Object.isFrozen(first.permissions) && Object.isFrozen(first.groups));
  assert.deepEqual(first.pluginPermissions, ["plugin.notes.read"]);
});

test("a principal that can still change is read afresh each time", () => {
  const open = principal();
  const before = toUserData(open);
  (open.granted as string[]).push("plugin.notes.write");
  const after = toUserData(open);
  assert.notEqual(after, before);
  assert.deepEqual(after.pluginPermissions, ["plugin.notes.read", "plugin.notes.write"]);
  // Frozen on the outside, a scope list inside still open: not remembered either.
  const shallow = Object.freeze({ ...principal(), granted: Object.freeze(["knot.mcp"]), groups: Object.freeze([]), user: Object.freeze({ ...principal().user }), scopes: Object.freeze({ permissions: ["knot.mcp"], write: true }) }) as Principal;
  const once = toUserData(shallow);
  (shallow.scopes!.permissions as string[]).pop();
  assert.deepEqual(toUserData(shallow).permissions, [], "the scope taken away is seen at once");
  assert.deepEqual(once.permissions, ["knot.mcp"]);
});
