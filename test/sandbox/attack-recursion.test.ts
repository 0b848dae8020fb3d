/**
 * Attack family: deep recursion. V8's stack limit inside the isolate throws a RangeError there; it
 * is an ordinary tool error (or caught by the tool), and the host is untouched.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
});
after(() => pool.close());

test("unbounded recursion is a TOOL_ERROR naming the stack overflow", async () => {
  assertError(await runTool(pool, "const down = (n) => down(n + 1) + 1; export default () => down(0)", { limits: ATTACK_LIMITS }), "TOOL_ERROR", /Maximum call stack size exceeded/);
  assertError(await runTool(pool, "const down = (n) => down(n + 1); down(0);", { limits: ATTACK_LIMITS }), "TOOL_ERROR", /Maximum call stack size exceeded/);
  await assertHostUnharmed(pool, marker);
});

test("recursion through the guest runtime (toJSON, console, getters) stays inside the isolate", async () => {
  const cases = [
    "export default () => { const o = { toJSON() { return { o } } }; return o }",
    "const o = { toJSON() { return [o] } }; console.log(o); export default () => 'printed'",
    "import { returnObject } from 'knot:tool'; const o = { get x() { return o.x } }; returnObject(o)",
  ];
  for (const source of cases) {
    const outcome = await runTool(pool, source, { limits: ATTACK_LIMITS });
    if (!outcome.ok) assertError(outcome, ["TOOL_ERROR", "CPU_LIMIT"]);
  }
  await assertHostUnharmed(pool, marker);
});

test("a tool that catches its own stack overflow goes on normally", async () => {
  const source = "export default () => { let depth = 0; const down = () => { depth += 1; down() }; try { down() } catch (e) { return { name: e.name, deep: depth > 1000 } } }";
  assert.deepEqual(assertOk(await runTool(pool, source, { limits: ATTACK_LIMITS })), { kind: "json", value: { name: "RangeError", deep: true } });
  await assertHostUnharmed(pool, marker);
});
