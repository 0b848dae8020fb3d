import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { assertError, assertOk, createTestPool, runTool } from "./harness.ts";

let pool: SandboxPool;
before(() => {
  pool = createTestPool();
});
after(() => pool.close());

const params = {
  text: "hello",
  num: 42,
  intText: " 42 ",
  intFloat: 42.0,
  floatText: "2.5e1",
  flag: "Yes",
  zero: 0,
  list: [1, "2", 3.0],
  csv: "a, b ,c",
  jsonList: "[true, false]",
  nothing: null,
  bad: { nested: true },
  half: 4.5,
};

test("knot:tool getters coerce like knot and fall back to the default, then to the zero value", async () => {
  const source = `import * as t from "knot:tool";
    export default () => ({
      text: t.getString("text"), numAsString: t.getString("num"), missingString: t.getString("missing"), defaultString: t.getString("missing", "dflt"),
      int: t.getInt("num"), intText: t.getInt("intText"), intFloat: t.getInt("intFloat"), missingInt: t.getInt("missing"), defaultInt: t.getInt("nothing", 7),
      float: t.getFloat("floatText"), floatFromInt: t.getFloat("num"),
      flag: t.getBool("flag"), zero: t.getBool("zero"), missingBool: t.getBool("missing"),
      list: t.getList("list"), csv: t.getList("csv"), jsonList: t.getList("jsonList"), missingList: t.getList("missing"),
      ints: t.getIntList("list"), strings: t.getStringList("list"), floats: t.getFloatList("missing", ["1.5", 2]), bools: t.getBoolList("jsonList"),
      inherited: t.getString("constructor"), proto: t.getString("__proto__", "safe"),
    })`;
  assert.deepEqual(assertOk(await runTool(pool, source, { params })), {
    kind: "json",
    value: {
      text: "hello", numAsString: "42", missingString: "", defaultString: "dflt",
      int: 42, intText: 42, intFloat: 42, missingInt: 0, defaultInt: 7,
      float: 25, floatFromInt: 42,
      flag: true, zero: false, missingBool: false,
      list: [1, "2", 3], csv: ["a", "b", "c"], jsonList: [true, false], missingList: [],
      ints: [1, 2, 3], strings: ["1", "2", "3"], floats: [1.5, 2], bools: [true, false],
      inherited: "", proto: "safe",
    },
  });
});

test("a value that cannot be read as the asked type throws a TypeError naming the argument", async () => {
  const cases: Array<[string, RegExp]> = [
    ['t.getInt("half")', /argument "half" must be an integer/],
    ['t.getInt("text")', /argument "text" must be an integer, got "hello"/],
    ['t.getFloat("flag")', /argument "flag" must be a number/],
    ['t.getBool("text")', /argument "text" must be a boolean/],
    ['t.getString("bad")', /argument "bad" must be a string, got object/],
    ['t.getList("num")', /argument "num" must be a list/],
    ['t.getIntList("csv")', /argument "csv"\[0\] must be an integer/],
    ['t.getInt("missing", "seven")', /argument "missing" \(default\) must be an integer/],
    ["t.getString(42)", /argument name must be a non-empty string/],
  ];
  for (const [call, message] of cases) {
    const outcome = await runTool(pool, `import * as t from "knot:tool"; export default () => ${call}`, { params });
    assertError(outcome, "TOOL_ERROR", message);
  }
  const caught = await runTool(pool, `import { getInt } from "knot:tool"; export default () => { try { getInt("text") } catch (e) { return e instanceof TypeError } }`, { params });
  assert.deepEqual(assertOk(caught), { kind: "json", value: true });
});

test("arguments are both request.params and the knot:tool context, and neither can spoil the other", async () => {
  const source = `import { getString } from "knot:tool";
    export default (request) => { request.params.text = "changed"; return [getString("text"), request.params.text] }`;
  assert.deepEqual(assertOk(await runTool(pool, source, { params })), { kind: "json", value: ["hello", "changed"] });
});
