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
  flagText: "true",
  bools: [true, "false"],
  zero: 0,
  list: [1, "2", 3.0],
  csv: "a, b ,c",
  jsonList: "[true, false]",
  nothing: null,
  bad: { nested: true },
  half: 4.5,
};

test("knot:tool getters read the declared types strictly and fall back to the default (parity table: test/tools/knot-tool-parity.test.ts)", async () => {
  const source = `import * as t from "knot:tool";
    export default () => ({
      text: t.getString("text"), numAsString: t.getString("num"), defaultString: t.getString("missing", "dflt"),
      int: t.getInt("num"), intText: t.getInt("intText"), intFloat: t.getInt("intFloat"), defaultInt: t.getInt("nothing", 7),
      float: t.getFloat("floatText"), floatFromInt: t.getFloat("num"),
      flag: t.getBool("flagText"), defaultBool: t.getBool("missing", false),
      list: t.getList("list"), defaultList: t.getList("missing", []),
      ints: t.getIntList("list"), strings: t.getStringList("list"), floats: t.getFloatList("missing", ["1.5", 2]), bools: t.getBoolList("bools"),
      proto: t.getString("__proto__", "safe"),
    })`;
  assert.deepEqual(assertOk(await runTool(pool, source, { params })), {
    kind: "json",
    value: {
      text: "hello", numAsString: "42", defaultString: "dflt",
      int: 42, intText: 42, intFloat: 42, defaultInt: 7,
      float: 25, floatFromInt: 42,
      flag: true, defaultBool: false,
      list: [1, "2", 3], defaultList: [],
      ints: [1, 2, 3], strings: ["1", "2", "3"], floats: [1.5, 2], bools: [true, false],
      proto: "safe",
    },
  });
});

test("a missing argument or one that cannot be read as the asked type throws INVALID_ARGUMENT naming it", async () => {
  const cases: Array<[string, RegExp]> = [
    ['t.getString("missing")', /argument "missing" is required/],
    ['t.getInt("nothing")', /argument "nothing" is required/],
    ['t.getString("constructor")', /argument "constructor" is required/],
    ['t.getInt("half")', /argument "half" must be an integer/],
    ['t.getInt("text")', /argument "text" must be an integer, got "hello"/],
    ['t.getFloat("flag")', /argument "flag" must be a number/],
    ['t.getBool("flag")', /argument "flag" must be a boolean, got "Yes"/],
    ['t.getBool("zero")', /argument "zero" must be a boolean, got number/],
    ['t.getString("bad")', /argument "bad" must be a string, got object/],
    ['t.getList("num")', /argument "num" must be a list/],
    ['t.getList("csv")', /argument "csv" must be a list, got "a, b ,c"/],
    ['t.getList("jsonList")', /argument "jsonList" must be a list/],
    ['t.getIntList("bools")', /argument "bools"\[0\] must be an integer/],
    ['t.getInt("missing", "seven")', /argument "missing" \(default\) must be an integer/],
    ["t.getString(42)", /argument name must be a non-empty string/],
  ];
  for (const [call, message] of cases) {
    const outcome = await runTool(pool, `import * as t from "knot:tool"; export default () => ${call}`, { params });
    assertError(outcome, "INVALID_ARGUMENT", message);
  }
  const caught = await runTool(pool, `import { getInt } from "knot:tool"; export default () => { try { getInt("text") } catch (e) { return [e instanceof Error, e.code] } }`, { params });
  assert.deepEqual(assertOk(caught), { kind: "json", value: [true, "INVALID_ARGUMENT"] });
});

test("arguments are both request.params and the knot:tool context, and neither can spoil the other", async () => {
  const source = `import { getString } from "knot:tool";
    export default (request) => { request.params.text = "changed"; return [getString("text"), request.params.text] }`;
  assert.deepEqual(assertOk(await runTool(pool, source, { params })), { kind: "json", value: ["hello", "changed"] });
});
