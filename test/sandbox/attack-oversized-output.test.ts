/**
 * Attack family: output floods. A result over limits.resultBytes (measured in UTF-8 bytes, in the
 * guest before crossing and in the worker after) is RESULT_TOO_LARGE whatever its kind; a log over
 * limits.logBytes is cut with one marker line, and the run still succeeds; progress is bounded.
 */
import assert from "node:assert/strict";
import { GUEST_CAPS } from "../../sandbox/guest/bindings.ts";
import { after, before, test } from "node:test";
import type { RunEvent, SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
});
after(() => pool.close());

const LIMITS = { ...ATTACK_LIMITS, resultBytes: 1_000, logBytes: 500 };
/** The flood loops 100,000 times after its log is cut: on a crowded 2-core machine that can pass 200 ms of CPU. */
const FLOOD_LIMITS = { ...LIMITS, cpuMs: 2_000, wallMs: 5_000 };

test("results over limits.resultBytes are RESULT_TOO_LARGE, for every kind of result", async () => {
  const sources = [
    'export default () => "x".repeat(1_001)',
    'export default () => ({ list: Array(400).fill("ab") })',
    'export default () => "é".repeat(600)', // 600 characters, 1 200 bytes
    'import { returnString } from "knot:tool"; returnString("y".repeat(5_000_000))',
    'import { returnObject } from "knot:tool"; returnObject({ big: "z".repeat(2_000) })',
    'import { returnToon } from "knot:tool"; returnToon({ rows: Array.from({ length: 200 }, (_, i) => ({ i, name: "row" + i })) })',
    'import { returnContent } from "knot:tool"; returnContent([{ type: "text", text: "w".repeat(1_500) }])',
    'import { returnString } from "knot:tool"; export default () => { try { returnString("v".repeat(2_000)) } catch {} return "caught it" }',
  ];
  for (const source of sources) {
    assertError(await runTool(pool, source, { limits: LIMITS }), "RESULT_TOO_LARGE", /larger than 1000 bytes/);
  }
  assert.deepEqual(assertOk(await runTool(pool, 'export default () => "é".repeat(500)', { limits: LIMITS })), { kind: "text", text: "é".repeat(500) });
  await assertHostUnharmed(pool, marker);
});

test("a log flood is truncated with one marker, and the run still answers", async () => {
  const events: RunEvent[] = [];
  const source = `import { log } from "knot:tool";
    export default () => { for (let i = 0; i < 100_000; i++) { console.log("line " + i + " " + "ü".repeat(20)); if (i % 7 === 0) log("warn", "w" + i) } return "survived" }`;
  const outcome = await runTool(pool, source, { limits: FLOOD_LIMITS, hooks: { onEvent: (event) => events.push(event) } });
  assert.deepEqual(assertOk(outcome), { kind: "text", text: "survived" });
  const markers = outcome.log.filter((line) => line.message.startsWith("[log truncated"));
  assert.equal(markers.length, 1);
  assert.equal(outcome.log.at(-1)?.message, markers[0]?.message);
  const kept = outcome.log.slice(0, -1).reduce((sum, line) => sum + Buffer.byteLength(line.message), 0);
  assert.ok(kept <= 500, `kept ${kept} bytes`);
  assert.ok(kept > 400, "the budget is used, not wasted");
  assert.equal(events.length, outcome.log.length, "events mirror the log");
  await assertHostUnharmed(pool, marker);
});

test("printed output used as the result is bounded by the log budget too", async () => {
  const outcome = await runTool(pool, 'for (let i = 0; i < 10_000; i++) console.log("p".repeat(50))', { limits: LIMITS });
  const result = assertOk(outcome) as { kind: string; text: string };
  assert.equal(result.kind, "text");
  assert.ok(Buffer.byteLength(result.text) <= 500 + 20, `printed ${result.text.length}`);
  await assertHostUnharmed(pool, marker);
});

test("empty log lines are not free: a flood of console.log() is cut by the log budget, and so is the printed result", async () => {
  // Each line costs its bytes and one more (its newline in the printed output): an empty line
  // cost nothing, so millions of them reached the host as events and as the printed result.
  const outcome = await runTool(pool, "for (let i = 0; i < 200_000; i++) console.log()", { limits: { ...FLOOD_LIMITS, resultBytes: 100 } });
  const result = assertOk(outcome) as { kind: string; text: string };
  assert.ok(outcome.log.length <= 501, `${outcome.log.length} log lines kept for a 500-byte budget`);
  assert.equal(outcome.log.at(-1)?.message.startsWith("[log truncated"), true);
  assert.ok(Buffer.byteLength(result.text) <= 100, `the printed result is ${Buffer.byteLength(result.text)} bytes for a 100-byte result budget`);
  await assertHostUnharmed(pool, marker);
});

test("a progress flood is bounded and the run still answers: events by count, their messages by size", async () => {
  let seen = 0;
  let messageChars = 0;
  // Control characters escape six-fold in JSON: the messages' bound must hold for them too.
  const outcome = await runTool(pool, 'import { progress } from "knot:tool"; for (let i = 0; i < 30_000; i++) progress(i, 30_000, "\\u0001".repeat(5_000)); export default () => "ok"', {
    limits: { ...LIMITS, cpuMs: 10_000, wallMs: 20_000 },
    hooks: {
      onEvent: (event) => {
        if (event.type !== "progress") return;
        seen += 1;
        messageChars += event.message?.length ?? 0;
      },
    },
  });
  assert.deepEqual(assertOk(outcome), { kind: "text", text: "ok" });
  assert.equal(seen, 10_000, "every event up to the count cap still reports its numbers");
  assert.ok(messageChars <= GUEST_CAPS.progressMessageTotalChars, `${messageChars} characters of progress messages reached the host`);
  assert.ok(messageChars > 0);
  await assertHostUnharmed(pool, marker);
});
