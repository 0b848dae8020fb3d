/**
 * sandbox/worker/shed-gate.ts: when a worker near its memory budget sheds idle isolates. RSS stays
 * near its high-water mark after a shed, so the gate must not open again at the same RSS (it would
 * empty the cache at every heartbeat), yet must open when memory keeps climbing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createShedGate } from "../../sandbox/worker/shed-gate.ts";

test("the gate opens past the threshold, not at or below it", () => {
  const gate = createShedGate(448);
  assert.equal(gate.due(300), false);
  assert.equal(gate.due(448), false);
  assert.equal(gate.due(449), true);
});

test("after a shed that left RSS high, the same RSS does not shed again; climbing a step further does", () => {
  const gate = createShedGate(448); // step: 448 / 16 = 28 MB
  assert.equal(gate.due(460), true);
  gate.settle(455, true);
  assert.equal(gate.due(460), false, "the pages stayed resident: no second shed at the high-water mark");
  assert.equal(gate.due(483), false);
  assert.equal(gate.due(484), true, "memory keeps climbing: shed again");
});

test("as RSS falls the gate comes back down, never under the threshold; a beat with nothing to shed leaves it", () => {
  const gate = createShedGate(448);
  gate.settle(500, true);
  assert.equal(gate.due(520), false);
  gate.settle(470, false);
  assert.equal(gate.due(499), true, "RSS fell to 470: the gate is now 470 + 28");
  gate.settle(100, false);
  assert.equal(gate.due(448), false, "never under the threshold");
  assert.equal(gate.due(449), true);
  gate.settle(600, false);
  assert.equal(gate.due(449), true, "nothing was shed: the gate does not rise with RSS");
});

test("a small threshold still steps by at least 8 MB", () => {
  const gate = createShedGate(16);
  gate.settle(20, true);
  assert.equal(gate.due(27), false);
  assert.equal(gate.due(29), true);
});
