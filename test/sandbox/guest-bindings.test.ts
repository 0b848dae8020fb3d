/**
 * The worker's side of the call binding (sandbox/worker/guest-bindings.ts), driven directly: the
 * guest's call ids must come in order (c1, c2, …), refusals go back through deliver (refuseCall),
 * and the call one past the limit ends the run. User code cannot reach the binding; these are the
 * worker's own re-checks.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { WorkerVerdict } from "../../sandbox/ipc.ts";
import { createGuestBindings } from "../../sandbox/worker/guest-bindings.ts";
import { createRunLog } from "../../sandbox/worker/run-log.ts";
import { makeJob } from "./harness.ts";

function bindingsFor(loopbackCalls = 3) {
  const seen = { started: [] as string[], refused: [] as Array<[string, string]>, verdicts: [] as WorkerVerdict[] };
  let settled = false;
  const job = makeJob("export default () => 1", { loopback: { baseUrl: "http://127.0.0.1:1", token: "t" }, limits: { loopbackCalls } });
  const bindings = createGuestBindings({
    job,
    log: createRunLog(1_000, () => undefined),
    onEvent: () => undefined,
    codedMessages: new Map(),
    isSettled: () => settled,
    settle: (verdict) => {
      if (settled) return;
      settled = true;
      seen.verdicts.push(verdict);
    },
    startCall: (id) => void seen.started.push(id),
    refuseCall: (id, code) => void seen.refused.push([id, code]),
  });
  return { bindings, seen };
}

const request = JSON.stringify({ plugin: "metrics", fn: "read", method: "GET", params: {} });
const errorCode = (verdict: WorkerVerdict | undefined) => (verdict !== undefined && !verdict.ok ? verdict.error.code : undefined);

test("calls in order are started under the guest's ids; a malformed request is refused through deliver", () => {
  const { bindings, seen } = bindingsFor();
  bindings.call("c1", request);
  bindings.call("c2", "{not json");
  bindings.call("c3", request);
  assert.deepEqual(seen.started, ["c1", "c3"]);
  assert.deepEqual(seen.refused, [["c2", "LOOPBACK_FAILED"]]);
  assert.deepEqual(seen.verdicts, []);
});

for (const [what, ids, started] of [
  ["a repeated id", ["c1", "c1"], ["c1"]],
  ["a skipped id", ["c1", "c3"], ["c1"]],
  ["an id that is not c<n>", ["x1"], []],
  ["a leading zero", ["c01"], []],
  ["a non-string id", [1], []],
] as const) {
  test(`${what} ends the run with INTERNAL and starts nothing more`, () => {
    const { bindings, seen } = bindingsFor();
    for (const id of ids) bindings.call(id, request);
    assert.equal(errorCode(seen.verdicts[0]), "INTERNAL");
    assert.deepEqual(seen.started, started);
    bindings.call("c2", request);
    assert.deepEqual(seen.started, started, "nothing starts after the run ended");
  });
}

test("the call one past the limit ends the run with LOOPBACK_LIMIT, and is not started", () => {
  const { bindings, seen } = bindingsFor(2);
  for (const id of ["c1", "c2", "c3"]) bindings.call(id, request);
  assert.deepEqual(seen.started, ["c1", "c2"]);
  assert.equal(errorCode(seen.verdicts[0]), "LOOPBACK_LIMIT");
});
