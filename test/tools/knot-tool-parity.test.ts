/**
 * Parity of `knot:tool`: the same code, reading the same arguments, as a plugin handler (real
 * plugin pool, HTTP dispatch) and as a user tool (real isolate in a real worker) must give the same
 * values, the same error codes and the same messages. The table pins the chosen semantics (the
 * table in docs/user-tools.md); the comparison pins parity.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import type { Principal } from "../../src/identity/principal.ts";
import { KnotError } from "../../src/errors.ts";
import { toUserData } from "../../src/identity/principal.ts";
import type { GuestUser } from "../../sandbox/index.ts";
import { manifest, request, startApp, tempDir, writePlugin, type TestApp } from "../helpers/fixtures.ts";
import { createTestPool, runTool } from "../sandbox/harness.ts";

/** The shared probe: the body is byte-for-byte the same on both sides. */
const PROBE = `
function attempt(run) {
  try { return { value: run() }; } catch (e) { return { code: e.code ?? null, message: e.message }; }
}
function probe(request) {
  const p = request.params;
  if (p.__mode === "getters") {
    return p.__cases.map((c) => attempt(() => (Object.hasOwn(c, "fallback") ? t[c.fn](c.name, c.fallback) : t[c.fn](c.name))));
  }
  if (p.__mode === "exports") return { tool: Object.keys(t).sort(), identity: Object.keys(id).sort() };
  if (p.__mode === "uncaught") return t.getInt("missing");
  if (p.__mode === "toon") t.returnToon(p.value);
  if (p.__mode === "events") return p.__calls.map(([fn, args]) => attempt(() => t[fn](...args) ?? null));
  if (p.__mode === "return") t[p.fn](...p.args);
  if (p.__mode === "identity") {
    const u = id.user();
    return p.__asks.map((ask) => ({ permission: u.hasPermission(ask), group: u.inGroup(ask) }));
  }
  return "unknown mode";
}`;

/**
 * knot:identity's hasPermission / inGroup: [what is asked, expected hasPermission, expected inGroup]
 * for a caller granted plugin.parity.read and plugin.parity.write, in group "staff" and "ops".
 * A list means all of it; an empty list, a non-string and a list holding one are false.
 */
const IDENTITY_CASES: Array<[unknown, boolean, boolean]> = [
  ["plugin.parity.read", true, false], ["plugin.parity.admin", false, false], ["staff", false, true],
  [["plugin.parity.read", "plugin.parity.write"], true, false], [["plugin.parity.read", "plugin.parity.admin"], false, false],
  [["staff", "ops"], false, true], [["staff", "nope"], false, false], [["plugin.parity.read"], true, false],
  [[], false, false], [42, false, false], [null, false, false], [["plugin.parity.read", 1], false, false],
  [{ 0: "plugin.parity.read", length: 1 }, false, false], ["plugin.parity.read,plugin.parity.write", false, false],
  [["staff", ["ops"]], false, false], [Array.from({ length: 65 }, () => "staff"), false, false],
];
const ADMIN_CASES: Array<[unknown, boolean, boolean]> = [
  ["anything.at.all", true, true], [["a", "b"], true, true], [[], false, false], [7, false, false], [["a", 7], false, false],
];

const ERR = Symbol("INVALID_ARGUMENT");
const ABSENT = Symbol("absent");
type Fn = "getString" | "getInt" | "getFloat" | "getBool" | "getList" | "getStringList" | "getIntList" | "getFloatList" | "getBoolList";
/** [getter, argument value (ABSENT: not sent), expected (ERR: INVALID_ARGUMENT), fallback?]. */
type Case = [Fn, unknown, unknown, unknown?];

const CASES: Case[] = [
  ["getString", "hello", "hello"], ["getString", 42, "42"], ["getString", true, "true"], ["getString", "", ""],
  ["getString", ABSENT, ERR], ["getString", null, ERR], ["getString", ABSENT, "dflt", "dflt"], ["getString", null, "dflt", "dflt"],
  ["getString", ABSENT, "7", 7], ["getString", ABSENT, ERR, null], ["getString", { nested: true }, ERR], ["getString", [1], ERR],
  ["getInt", 42, 42], ["getInt", 42.0, 42], ["getInt", "42", 42], ["getInt", " 42 ", 42], ["getInt", "-7", -7], ["getInt", "+3", 3],
  ["getInt", " 0x10 ", ERR], ["getInt", "1e3", ERR], ["getInt", 4.5, ERR], ["getInt", "4.5", ERR], ["getInt", "", ERR],
  ["getInt", "12abc", ERR], ["getInt", true, ERR], ["getInt", 2 ** 53, ERR], ["getInt", ABSENT, ERR], ["getInt", null, ERR],
  ["getInt", ABSENT, 7, 7], ["getInt", null, 7, "7"], ["getInt", ABSENT, ERR, "seven"], ["getInt", 0, 0],
  ["getFloat", 2.5, 2.5], ["getFloat", "2.5e1", 25], ["getFloat", "1e3", 1000], ["getFloat", ".5", 0.5], ["getFloat", 42, 42],
  ["getFloat", " 0x10 ", ERR], ["getFloat", "Infinity", ERR], ["getFloat", "NaN", ERR], ["getFloat", "", ERR], ["getFloat", true, ERR],
  ["getFloat", ABSENT, ERR], ["getFloat", ABSENT, 1.5, 1.5],
  ["getBool", true, true], ["getBool", false, false], ["getBool", "true", true], ["getBool", "false", false],
  ["getBool", "yes", ERR], ["getBool", "on", ERR], ["getBool", "TRUE", ERR], ["getBool", " true", ERR], ["getBool", "1", ERR],
  ["getBool", 1, ERR], ["getBool", 0, ERR], ["getBool", ABSENT, ERR], ["getBool", ABSENT, false, false], ["getBool", null, true, true],
  ["getBool", ABSENT, ERR, "no"],
  ["getList", [1, "2", 3.0], [1, "2", 3]], ["getList", [], []], ["getList", "a, b ,c", ERR], ["getList", "[true,false]", ERR],
  ["getList", { 0: "a" }, ERR], ["getList", ABSENT, ERR], ["getList", ABSENT, [], []], ["getList", ABSENT, ERR, "x,y"],
  ["getStringList", [1, "2", true], ["1", "2", "true"]], ["getStringList", [null], ERR], ["getStringList", "a,b", ERR],
  ["getIntList", [1, "2", 3.0], [1, 2, 3]], ["getIntList", ["1e3"], ERR], ["getIntList", [1, 1.5], ERR],
  ["getIntList", ABSENT, [1, 2], ["1", 2]], ["getIntList", ABSENT, ERR],
  ["getFloatList", ["1.5", 2], [1.5, 2]], ["getFloatList", ["x"], ERR],
  ["getBoolList", [true, "false"], [true, false]], ["getBoolList", ["yes"], ERR], ["getBoolList", [1], ERR],
];

/** Names that are not argument names: never read through inheritance, never accepted. */
const NAME_CASES = [
  { fn: "getString", name: "constructor" },
  { fn: "getString", name: "__proto__", fallback: "safe" },
  { fn: "getString", name: 42 },
  { fn: "getInt", name: "" },
];

function gettersCall(): { params: Record<string, unknown>; expected: unknown[] } {
  const params: Record<string, unknown> = { __mode: "getters" };
  const cases: Array<Record<string, unknown>> = [];
  const expected: unknown[] = [];
  CASES.forEach(([fn, value, want, ...fallback], index) => {
    const name = `${fn}_${index}`;
    if (value !== ABSENT) params[name] = value;
    cases.push(fallback.length > 0 ? { fn, name, fallback: fallback[0] } : { fn, name });
    expected.push(want);
  });
  cases.push(...NAME_CASES);
  expected.push(ERR, "safe", ERR, ERR);
  params.__cases = cases;
  return { params, expected };
}

describe("knot:tool parity: plugin handler and user tool", () => {
  let t: TestApp;
  let pool: SandboxPool;
  let principal: Principal;
  let token: string;

  before(async () => {
    const dir = tempDir();
    writePlugin(dir, "parity", {
      "main.js": manifest(`
        [tool.knot]
        version = "1.0.0"
        [[tool.knot.handlers]]
        handler = "probe"
      `) + `import * as t from "knot:tool";\nimport * as id from "knot:identity";\n${PROBE}\nexport { probe };\n`,
    });
    t = await startApp({ pluginsDir: dir });
    const ann = await t.userWithToken("ann", { grants: ["plugin.parity.read", "plugin.parity.write"], groups: ["staff", "ops"] });
    token = ann.token;
    principal = (await t.app.auth.principalFor(ann.user.id))!;
    pool = createTestPool();
  });
  after(async () => {
    await pool.close();
    await t.close();
  });

  const inPlugin = (params: Record<string, unknown>, who = principal) => t.app.pool.dispatch("parity", "probe", { principal: who, method: "POST", params });
  /** The run's verdict only (its log and duration are not part of the answer); the run's user is what the host would send for `who`. */
  const inSandbox = async (params: Record<string, unknown>, who = principal) => {
    const outcome = await runTool(pool, `import * as t from "knot:tool";\nimport * as id from "knot:identity";\n${PROBE}\nexport default probe;\n`, { params, user: toUserData(who) as GuestUser });
    return outcome.ok ? { ok: true as const, result: outcome.result } : { ok: false as const, error: outcome.error };
  };

  it("every getter gives the same value or the same INVALID_ARGUMENT on both sides, as the table says", async () => {
    const { params, expected } = gettersCall();
    const plugin = await inPlugin(params);
    const sandbox = await inSandbox(params);
    assert.equal(sandbox.ok, true, JSON.stringify(sandbox));
    assert.deepEqual(sandbox.ok && sandbox.result, plugin, "the two sides answer the same, message for message");
    assert.equal(plugin.kind, "json");
    const answers = (plugin as { value: Array<{ value?: unknown; code?: string; message?: string }> }).value;
    const wrong = answers.flatMap((answer, index) => {
      const want = expected[index];
      const ok = want === ERR ? answer.code === "INVALID_ARGUMENT" && typeof answer.message === "string" : "value" in answer && JSON.stringify(answer.value) === JSON.stringify(want);
      return ok ? [] : [{ case: index < CASES.length ? CASES[index]!.map(String) : NAME_CASES[index - CASES.length], got: answer }];
    });
    assert.deepEqual(wrong, []);
    const messageOf = (fn: Fn, value: unknown) => {
      const index = CASES.findIndex((c) => c[0] === fn && JSON.stringify(c[1]) === JSON.stringify(value) && c.length === 3);
      return [`${fn}_${index}`, answers[index]!.message] as const;
    };
    const [required, requiredMessage] = messageOf("getString", ABSENT);
    assert.equal(requiredMessage, `argument "${required}" is required`);
    const [hex, hexMessage] = messageOf("getInt", " 0x10 ");
    assert.equal(hexMessage, `argument "${hex}" must be an integer, got " 0x10 "`);
    const [item, itemMessage] = messageOf("getIntList", [1, 1.5]);
    assert.equal(itemMessage, `argument "${item}"[1] must be an integer, got number`);
    assert.equal(answers[CASES.length]!.message, 'argument "constructor" is required');
  });

  it("knot:tool and knot:identity export the same names on both sides, and nothing internal", async () => {
    const plugin = await inPlugin({ __mode: "exports" });
    const sandbox = await inSandbox({ __mode: "exports" });
    assert.equal(plugin.kind, "json");
    const names = plugin.kind === "json" ? (plugin.value as { tool: string[]; identity: string[] }) : null;
    assert.deepEqual(sandbox, { ok: true, result: { kind: "json", value: names } });
    for (const name of [...names!.tool, ...names!.identity]) assert.match(name, /^[a-z][A-Za-z]*$/, `${name} is not a public API name`);
    assert.ok(names!.tool.includes("getString") && names!.identity.includes("user"));
  });

  it("an uncaught refusal fails the call with INVALID_ARGUMENT (HTTP 400) on both sides", async () => {
    const sandbox = await inSandbox({ __mode: "uncaught" });
    assert.deepEqual(sandbox, { ok: false, error: { code: "INVALID_ARGUMENT", message: 'argument "missing" is required' } });
    await assert.rejects(inPlugin({ __mode: "uncaught" }), (e: unknown) => e instanceof KnotError && e.code === sandbox.error?.code && e.message === sandbox.error.message);
    const http = await request(`${t.url}/plugins/parity/probe`, token, { method: "POST", body: JSON.stringify({ __mode: "uncaught" }) });
    assert.equal(http.status, 400);
    assert.equal(http.body.code, "INVALID_ARGUMENT");
  });

  const TOON: Array<[string, unknown, string?]> = [
    ["flat object", { name: "Ada", age: 36, active: true, note: null }, "name: Ada\nage: 36\nactive: true\nnote: null"],
    ["strings that need quotes", { a: "", b: " padded ", c: "a,b", d: "x: y", e: "true", f: "null", g: "42", h: "-5", i: "1e3", j: "05", k: 'say "hi"', l: "line\nbreak", m: "[x]", n: "- item", o: "plain words" },
      'a: ""\nb: " padded "\nc: "a,b"\nd: "x: y"\ne: "true"\nf: "null"\ng: "42"\nh: "-5"\ni: "1e3"\nj: "05"\nk: "say \\"hi\\""\nl: "line\\nbreak"\nm: "[x]"\nn: "- item"\no: plain words'],
    ["unicode", { "ключ": "héllo ✓ 日本", emoji: "🙂" }, '"ключ": héllo ✓ 日本\nemoji: 🙂'],
    ["keys that need quotes", { "my key": 1, "a.b": 2, "": 3, "1st": 4, "x:y": 5 }, '"my key": 1\na.b: 2\n"": 3\n"1st": 4\n"x:y": 5'],
    ["nested", { user: { name: "x", tags: ["a", "b c", ""], address: { city: "Oslo" } } }, 'user:\n  name: x\n  tags[3]: a,b c,""\n  address:\n    city: Oslo'],
    ["table", { rows: [{ id: 1, name: "a,b" }, { id: 2, name: "c" }] }, 'rows[2]{id,name}:\n  1,"a,b"\n  2,c'],
    ["empties", { list: [], obj: {}, text: "" }, 'list[0]:\nobj:\ntext: ""'],
    ["mixed array", [1, { a: 1, b: [2] }, [2, 3], "x", {}]],
    ["ragged table", [{ id: 1 }, { id: 2, extra: true }]],
    ["numbers", { big: 1e21, small: 1.5e-7, neg: -3, zero: -0 }],
    ["empty object", {}], ["empty array", []],
    ["top-level strings", "needs: quote"], ["top-level plain", "plain"], ["top-level number", 42], ["top-level null", null],
  ];

  it("returnToon encodes tricky values to the same text on both sides", async () => {
    for (const [label, value, text] of TOON) {
      const plugin = await inPlugin({ __mode: "toon", value });
      const sandbox = await inSandbox({ __mode: "toon", value });
      assert.deepEqual(sandbox, { ok: true, result: plugin }, label);
      assert.equal(plugin.kind, "toon", label);
      if (text !== undefined) assert.equal((plugin as { text: string }).text, text, label);
    }
  });

  it("returnToon refuses a value JSON cannot carry the same way on both sides", async () => {
    const sandbox = await inSandbox({ __mode: "toon" });
    assert.deepEqual(sandbox, { ok: false, error: { code: "TOOL_ERROR", message: "returnToon: the value is not JSON-serialisable" } });
    await assert.rejects(inPlugin({ __mode: "toon" }), (e: unknown) => e instanceof KnotError && e.code === "TOOL_ERROR" && e.message === sandbox.error?.message);
  });

  it("knot:identity hasPermission/inGroup answer the same table on both sides (a list means all of it)", async () => {
    const check = async (who: Principal, cases: Array<[unknown, boolean, boolean]>, label: string) => {
      const params = { __mode: "identity", __asks: cases.map(([ask]) => ask) };
      const plugin = await inPlugin(params, who);
      const sandbox = await inSandbox(params, who);
      assert.deepEqual(sandbox, { ok: true, result: plugin }, `${label}: both sides agree`);
      assert.deepEqual((plugin as { value: unknown }).value, cases.map(([, permission, group]) => ({ permission, group })), `${label}: the table`);
    };
    await check(principal, IDENTITY_CASES, "granted user");
    const root = await t.user("root", { admin: true });
    await check((await t.app.auth.principalFor(root.id))!, ADMIN_CASES, "admin");
    // An admin through a scoped token (an assistant's) is not an admin for in-code checks, on either side.
    const scopedAdmin = { ...(await t.app.auth.principalFor(root.id))!, scopes: { permissions: ["plugin.parity.*"], write: false } };
    await check(scopedAdmin, [["plugin.parity.read", false, false], [["plugin.parity.read"], false, false]], "scoped admin");
  });

  /** progress and log: arguments they take, and those they refuse, with the same TypeError message. */
  const EVENT_CALLS: Array<[string, unknown[]]> = [
    ["progress", [1]], ["progress", [1, 10]], ["progress", [1, 10, "step"]], ["progress", ["1"]], ["progress", [0.5, 1, ""]],
    ["progress", [null]], ["progress", [1, "10"]], ["progress", [1, 10, 5]], ["progress", []],
    ["log", ["info", "hello"]], ["log", ["warn", 42]], ["log", ["error", null]], ["log", ["verbose", "x"]], ["log", [1, "x"]], ["log", []],
  ];

  it("progress and log take and refuse the same arguments on both sides", async () => {
    const params = { __mode: "events", __calls: EVENT_CALLS };
    const plugin = await inPlugin(params);
    const sandbox = await inSandbox(params);
    assert.deepEqual(sandbox, { ok: true, result: plugin });
    const answers = (plugin as { value: Array<{ value?: unknown; message?: string }> }).value;
    const refused = EVENT_CALLS.filter((_, i) => answers[i]!.message !== undefined).map(([fn, args]) => `${fn}(${JSON.stringify(args).slice(1, -1)})`);
    assert.deepEqual(refused, ['progress("1")', "progress(null)", 'progress(1,"10")', "progress(1,10,5)", "progress()", 'log("verbose","x")', 'log(1,"x")', "log()"]);
  });

  /** return* with values each side must answer alike: the result, or the same refusal. */
  const RETURNS: Array<[string, unknown[]]> = [
    ["returnString", ["text"]], ["returnString", [42]], ["returnString", [true]], ["returnString", [null]], ["returnString", [{ a: 1 }]], ["returnString", [["a"]]],
    ["returnObject", [{ a: [1, null] }]], ["returnObject", [null]], ["returnObject", ["just text"]], ["returnObject", []],
    ["returnContent", [[{ type: "text", text: "hi" }]]], ["returnContent", [[{ type: "image", data: "aGk=", mimeType: "image/png" }]]],
    ["returnContent", [[{ type: "text", text: "hi", extra: "dropped" }]]], ["returnContent", [[{ type: "video", url: "x" }]]],
    ["returnContent", [[{ type: "image", data: "not base64!", mimeType: "image/png" }]]], ["returnContent", [{ type: "text", text: "not a list" }]],
    ["returnError", ["went wrong"]], ["returnError", [""]], ["returnError", [404]], ["returnError", []],
  ];

  it("return* answer the same result or the same refusal on both sides", async () => {
    const differences = [];
    for (const [fn, args] of RETURNS) {
      const sandbox = await inSandbox({ __mode: "return", fn, args });
      const plugin = await inPlugin({ __mode: "return", fn, args }).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error: { code: error instanceof KnotError ? String(error.code) : `uncoded ${(error as Error).name}`, message: (error as Error).message } }),
      );
      if (JSON.stringify(sandbox) !== JSON.stringify(plugin)) differences.push({ call: `${fn}(${JSON.stringify(args).slice(1, -1)})`, sandbox, plugin });
    }
    assert.deepEqual(differences, []);
  });
});
