/** The composition root's typed hub: listeners hear later announcements, in order, until they stop. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createHub } from "../../src/events/hub.ts";

test("listeners hear what is emitted after they subscribe, until they stop; nothing is stored", () => {
  const hub = createHub<{ toolsChanged: readonly string[] | undefined; tokenRevoked: string }>();
  const heard: unknown[] = [];
  hub.emit("tokenRevoked", "before anyone listens");
  const stop = hub.on("tokenRevoked", (id) => heard.push(["a", id]));
  hub.on("tokenRevoked", (id) => heard.push(["b", id]));
  hub.on("toolsChanged", (ids) => heard.push(["tools", ids]));
  hub.emit("tokenRevoked", "t1");
  hub.emit("toolsChanged", undefined);
  hub.emit("toolsChanged", ["u1"]);
  stop();
  hub.emit("tokenRevoked", "t2");
  assert.deepEqual(heard, [["a", "t1"], ["b", "t1"], ["tools", undefined], ["tools", ["u1"]], ["b", "t2"]]);
});
