import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunEvent, SandboxPool } from "../../sandbox/index.ts";
import { ADMIN, USER, assertError, assertOk, createTestPool, makeJob, runTool } from "./harness.ts";

let pool: SandboxPool;
before(() => {
  pool = createTestPool();
});
after(() => pool.close());

test("the default export is the handler; it gets { method, params, user } as plain data", async () => {
  const source = `export default async (request) => JSON.stringify([request.method, request.params, request.user.name, Object.keys(request).sort()])`;
  const result = assertOk(await runTool(pool, source, { params: { n: 1, list: [true, "x"] } }));
  assert.deepEqual(result, { kind: "text", text: JSON.stringify(["CALL", { n: 1, list: [true, "x"] }, "ann", ["method", "params", "user"]]) });
});

test("a sink job (entry \"sink\", set by the host) hands the default export the event itself", async () => {
  const event = { id: "ev-1", type: "tool.saved", at: "2026-11-30T18:00:00.000Z", data: { name: "x" } };
  const source = `import { user } from "knot:identity";\nimport { getString } from "knot:tool";\nexport default (event) => JSON.stringify([Object.keys(event).sort(), event.type, event.data.name, event.at, user().name, getString("id")])`;
  const outcome = await pool.run({ ...makeJob(source, { params: event }), entry: "sink" }, { resolveModule: () => null });
  assert.deepEqual(assertOk(outcome), { kind: "text", text: JSON.stringify([["at", "data", "id", "type"], "tool.saved", "x", event.at, "ann", "ev-1"]) });
  // The same params without the host's entry field are an ordinary tool request.
  const plain = assertOk(await runTool(pool, `export default (r) => Object.keys(r).sort().join()`, { params: event }));
  assert.deepEqual(plain, { kind: "text", text: "method,params,user" });
});

test("the job's entry field is checked: only \"tool\" or \"sink\", and a sink's params must be an event", async () => {
  const none = { resolveModule: () => null };
  await assert.rejects(pool.run({ ...makeJob("1"), entry: "admin" as never }, none), /job\.entry must be "tool" or "sink"/);
  await assert.rejects(pool.run({ ...makeJob("1", { params: { id: "e", type: "t" } }), entry: "sink" }, none), /job\.params must be the event/);
  await assert.rejects(pool.run({ ...makeJob("1", { params: { id: "e", type: "t", at: "now", data: 1, extra: true } }), entry: "sink" }, none), /job\.params/);
  assert.deepEqual(assertOk(await pool.run({ ...makeJob("export default (r) => r.method"), entry: "tool" }, none)), { kind: "text", text: "CALL" });
});

test("an exported main is the handler when there is no default; objects become JSON", async () => {
  const result = assertOk(await runTool(pool, `export function main(request) { return { doubled: request.params.n * 2, ok: true, none: null } }`, { params: { n: 21 } }));
  assert.deepEqual(result, { kind: "json", value: { doubled: 42, ok: true, none: null } });
});

test("plain top-level code can answer with returnString; top-level await works", async () => {
  const result = assertOk(await runTool(pool, `import { returnString } from "knot:tool";\nconst v = await Promise.resolve("top");\nreturnString(v + "-level");`));
  assert.deepEqual(result, { kind: "text", text: "top-level" });
});

test("printed console output is the result when the tool returns nothing, and it is the run's log", async () => {
  const outcome = await runTool(pool, `console.log("hello", 42, { a: [1] }); console.debug("dbg"); console.warn("careful"); console.error(new TypeError("bad"));`);
  assert.deepEqual(assertOk(outcome), { kind: "text", text: 'hello 42 {"a":[1]}\ndbg\ncareful\nTypeError: bad' });
  assert.deepEqual(outcome.log, [
    { level: "info", message: 'hello 42 {"a":[1]}' },
    { level: "debug", message: "dbg" },
    { level: "warn", message: "careful" },
    { level: "error", message: "TypeError: bad" },
  ]);
});

test("a tool that prints nothing and returns nothing answers none; a returned value beats printed output", async () => {
  assert.deepEqual(assertOk(await runTool(pool, `export default () => undefined`)), { kind: "none" });
  const outcome = await runTool(pool, `export default () => { console.log("side note"); return 7 }`);
  assert.deepEqual(assertOk(outcome), { kind: "json", value: 7 });
  assert.deepEqual(outcome.log, [{ level: "info", message: "side note" }]);
});

test("returnObject, returnToon and returnContent set the result kind", async () => {
  const object = await runTool(pool, `import { returnObject } from "knot:tool"; export default () => { returnObject({ rows: [1, 2] }); return "never" }`);
  assert.deepEqual(assertOk(object), { kind: "json", value: { rows: [1, 2] } });

  const toon = await runTool(pool, `import { returnToon } from "knot:tool";
    returnToon({ name: "fleet", "odd key": "a: b", tags: ["x", "y"], rows: [{ id: 1, host: "a" }, { id: 2, host: "b" }], nested: { deep: true, empty: [] }, mixed: [1, { k: "v" }] })`);
  assert.deepEqual(assertOk(toon), {
    kind: "toon",
    text: [
      "name: fleet",
      '"odd key": "a: b"',
      "tags[2]: x,y",
      "rows[2]{id,host}:",
      "  1,a",
      "  2,b",
      "nested:",
      "  deep: true",
      "  empty[0]:",
      "mixed[2]:",
      "  - 1",
      "  - k: v",
    ].join("\n"),
  });

  const content = await runTool(pool, `import { returnContent } from "knot:tool";
    returnContent([{ type: "text", text: "hi", extra: 1 }, { type: "image", data: "aGk=", mimeType: "image/png" }, { type: "resource", resource: { uri: "knot://x", text: "t" } }])`);
  assert.deepEqual(assertOk(content), {
    kind: "content",
    content: [
      { type: "text", text: "hi" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "resource", resource: { uri: "knot://x", text: "t" } },
    ],
  });

  const bad = await runTool(pool, `import { returnContent } from "knot:tool"; returnContent([{ type: "text", text: "ok" }, { type: "image", data: "***", mimeType: "x" }])`);
  assertError(bad, "TOOL_ERROR", /blocks\[1\]\.data must be base64/);
  // Base64 the MCP SDK's check (atob) refuses is refused here, naming the block, not left for the
  // SDK to answer with its schema library's dump: a lone last character, padding out of place.
  for (const data of ["a", "abcde", "ab=", "a===", "=abc"]) {
    const odd = await runTool(pool, `import { returnContent } from "knot:tool"; returnContent([{ type: "image", data: ${JSON.stringify(data)}, mimeType: "image/png" }])`);
    assertError(odd, "TOOL_ERROR", /blocks\[0\]\.data must be base64/);
  }
  for (const data of ["", "ab", "abc", "abc=", "ab==", "aGk="]) {
    const fine = await runTool(pool, `import { returnContent } from "knot:tool"; returnContent([{ type: "image", data: ${JSON.stringify(data)}, mimeType: "image/png" }])`);
    assert.equal(assertOk(fine).kind, "content", data);
  }
});

test("returnError fails the run with TOOL_ERROR; the last return* wins when one is caught", async () => {
  assertError(await runTool(pool, `import { returnError } from "knot:tool"; returnError("platform group only")`), "TOOL_ERROR", /^platform group only$/);
  const last = await runTool(pool, `import { returnError, returnString } from "knot:tool";
    export default () => { try { returnError("first") } catch {} returnString("second") }`);
  assert.deepEqual(assertOk(last), { kind: "text", text: "second" });
});

test("a return* stays in the guest until the run ends: the last one wins across awaits, throws and top-level code", async () => {
  // Caught, then replaced after awaits; and kept when the handler then throws.
  const awaited = await runTool(pool, `import { returnString } from "knot:tool";
    export default async () => { try { returnString("early") } catch {} await null; await Promise.resolve(); returnString("late") }`);
  assert.deepEqual(assertOk(awaited), { kind: "text", text: "late" });
  const thrownAfter = await runTool(pool, `import { returnString } from "knot:tool";
    export default async () => { try { returnString("early") } catch {} await null; throw new Error("after") }`);
  assert.deepEqual(assertOk(thrownAfter), { kind: "text", text: "early" });
  // A return* at the top level of the module (no handler), and one followed by an uncaught throw there.
  assert.deepEqual(assertOk(await runTool(pool, `import { returnObject } from "knot:tool"; returnObject({ top: 1 })`)), { kind: "json", value: { top: 1 } });
  const thenThrown = await runTool(pool, `import { returnString } from "knot:tool"; try { returnString("kept") } catch {} throw new Error("after the return")`);
  assert.deepEqual(assertOk(thenThrown), { kind: "text", text: "kept" });
  // Many caught return*s of a large value: nothing crosses until the end, and the last one is the answer.
  const looped = await runTool(pool, `import { returnString } from "knot:tool";
    export default () => { const big = "x".repeat(60000); for (let i = 0; i < 2000; i++) { try { returnString(big + i) } catch {} } returnString("last") }`);
  assert.deepEqual(assertOk(looped), { kind: "text", text: "last" });
  // The answer is checked against the limit in UTF-8 bytes: the last return* too large fails the run;
  // one over in characters ends the run at once, and a later return* does not replace that.
  const lastTooLarge = await runTool(pool, `import { returnString } from "knot:tool";
    export default () => { try { returnString("small") } catch {} returnString("é".repeat(700)) }`, { limits: { resultBytes: 1000 } });
  assertError(lastTooLarge, "RESULT_TOO_LARGE", /larger than 1000 bytes/);
  const overInCharacters = await runTool(pool, `import { returnString } from "knot:tool";
    export default () => { try { returnString("x".repeat(1001)) } catch {} returnString("small") }`, { limits: { resultBytes: 1000 } });
  assertError(overInCharacters, "RESULT_TOO_LARGE", /larger than 1000 bytes/);
});

test("thrown errors become TOOL_ERROR with the message only; unserialisable results are refused", async () => {
  assertError(await runTool(pool, `export default () => { throw new RangeError("out of range") }`), "TOOL_ERROR", /^out of range$/);
  assertError(await runTool(pool, `throw "a string"`), "TOOL_ERROR", /^a string$/);
  assertError(await runTool(pool, `export default async () => { await null; throw { not: "an error" } }`), "TOOL_ERROR", /not an Error/);
  for (const value of ["() => 1", "(() => { const a = {}; a.self = a; return a })()", "10n", "Symbol('s')"]) {
    assertError(await runTool(pool, `export default () => ${value}`), "TOOL_ERROR", /not JSON-serialisable/);
  }
});

test("progress and log events reach onEvent while the run goes on", async () => {
  const events: RunEvent[] = [];
  const outcome = await runTool(pool, `import { progress, log } from "knot:tool";
    export default () => { progress(1, 3, "first"); log("warn", "halfway"); progress(3); console.info("printed"); return "done" }`, {
    hooks: { onEvent: (event) => events.push(event) },
  });
  assert.deepEqual(assertOk(outcome), { kind: "text", text: "done" });
  assert.deepEqual(events, [
    { type: "progress", done: 1, total: 3, message: "first" },
    { type: "log", level: "warn", message: "halfway" },
    { type: "progress", done: 3 },
    { type: "log", level: "info", message: "printed" },
  ]);
  assert.deepEqual(outcome.log, [{ level: "warn", message: "halfway" }, { level: "info", message: "printed" }]);
  assertError(await runTool(pool, `import { log } from "knot:tool"; log("loud", "x")`), "TOOL_ERROR", /level must be/);
  assertError(await runTool(pool, `import { progress } from "knot:tool"; progress(NaN)`), "TOOL_ERROR", /finite number/);
});

test("knot:identity answers from the run's user; admin passes every check; the object is frozen", async () => {
  const source = `import { user } from "knot:identity";
    export default () => { const u = user(); "use strict";
      let mutated = "no"; try { u.isAdmin = true; mutated = String(u.isAdmin) } catch { mutated = "threw" }
      return { id: u.id, name: u.name, isAdmin: u.isAdmin, groups: u.groups, frozen: Object.isFrozen(u) && Object.isFrozen(u.permissions), same: u === user(), mutated,
        perm: u.hasPermission("tools.run"), pluginPerm: u.hasPermission("plugin.metrics.export"), missing: u.hasPermission("admin.all"),
        staff: u.inGroup("staff"), ops: u.inGroup("ops") } }`;
  assert.deepEqual(assertOk(await runTool(pool, source)), {
    kind: "json",
    value: { id: "u-ann", name: "ann", isAdmin: false, groups: ["staff"], frozen: true, same: true, mutated: "threw", perm: true, pluginPerm: true, missing: false, staff: true, ops: false },
  });
  const admin = assertOk(await runTool(pool, source, { user: ADMIN }));
  assert.equal(admin.kind, "json");
  const value = (admin as { value: Record<string, unknown> }).value;
  assert.deepEqual([value.isAdmin, value.perm, value.missing, value.staff, value.ops], [true, true, true, true, true]);
  assert.equal(USER.isAdmin, false);
});
