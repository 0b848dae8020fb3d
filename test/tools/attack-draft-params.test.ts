/**
 * Issue 10 item 7: parameters of a draft (`POST /api/tools/check|run`, the editor's streamed run)
 * are validated exactly as saved ones, bounded (count, schema size, enum/default values, names
 * that are properties of every object), and whatever reaches ajv can fail only as
 * INVALID_ARGUMENT — never a 500, never a stalled event loop.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parametersToJsonSchema } from "../../src/plugins/manifest/index.ts";
import { toParameterDecls } from "../../src/tools/tool-runner.ts";
import { parseToolParameters, parseUserToolInput } from "../../src/tools/user-tool-input.ts";
import { compiledValidatorCount, validateArguments } from "../../src/validation/json-schema.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect } from "../mcp/helpers.ts";

const CODE = "export default (r) => r.params;";
const many = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `p${i}`, type: "string", required: true }));

/** Parameter lists that must be refused, with the place the error must name. */
const BAD: ReadonlyArray<readonly [string, unknown, RegExp]> = [
  ["type names an Object.prototype member", [{ name: "x", type: "constructor" }], /parameters\[0\]\.type/],
  ["type __proto__", [{ name: "x", type: "__proto__" }], /parameters\[0\]\.type/],
  ["name __proto__", [{ name: "__proto__", type: "list", default: [1] }], /parameters\[0\]\.name/],
  ["name constructor", [{ name: "constructor", type: "string", required: true }], /parameters\[0\]\.name/],
  ["name hasOwnProperty", [{ name: "hasOwnProperty", type: "string", default: "x" }], /parameters\[0\]\.name/],
  ["not an array", { name: "x" }, /parameters/],
  ["an element not an object", ["x"], /parameters\[0\]/],
  ["65 parameters", many(65), /parameters.*at most 64/],
  ["2,500 required parameters", many(2500), /parameters.*at most 64/],
  ["an enum of 1,000 values", [{ name: "x", enum: Array.from({ length: 1000 }, (_, i) => `v${i}`) }], /parameters\[0\]\.enum/],
  ["a default nested 40 deep", [{ name: "x", type: "list", default: JSON.parse("[".repeat(40) + "]".repeat(40)) }], /parameters\[0\]\.default/],
  // A quoted "__proto__" key in a default ajv writes out as a literal set the filled-in argument's prototype.
  ["a default object with a __proto__ key", [{ name: "opts", type: "object", default: JSON.parse('{"__proto__":{"isAdmin":true}}') }], /parameters\[0\]\.default.*__proto__/],
  ["a __proto__ key nested in a list default", [{ name: "opts", type: "list", default: JSON.parse('[{"a":{"__proto__":{"x":1}}}]') }], /parameters\[0\]\.default.*__proto__/],
  ["an enum value with a __proto__ key", [{ name: "x", enum: [JSON.parse('{"__proto__":{"x":1}}')] }], /parameters\[0\]\.enum.*__proto__/],
  ["a schema over 64 KiB", Array.from({ length: 64 }, (_, i) => ({ name: `p${i}`, description: "d".repeat(1500) })), /parameters.*64 KiB/],
];

describe("draft parameters are validated exactly as saved ones, and bounded", () => {
  let t: TestApp;
  let author: string;
  let authorId: string;

  before(async () => {
    t = await startApp();
    const created = await t.userWithToken("author", { grants: ["knot.tools.author"] });
    author = created.token;
    authorId = created.user.id;
  });
  after(() => t.close());

  const post = (route: string, body: unknown) => request(`${t.url}${route}`, author, { method: "POST", body: JSON.stringify(body) });

  for (const [name, parameters, where] of BAD) {
    it(`${name}: INVALID_ARGUMENT naming the place, the same for save, check and run`, async () => {
      const saved = await post("/api/tools", { name: "t_saved", code: CODE, parameters });
      assert.equal(saved.status, 400, JSON.stringify(saved.body).slice(0, 300));
      assert.equal(saved.body.code, "INVALID_ARGUMENT");
      assert.match(saved.body.error, where);
      for (const route of ["/api/tools/check", "/api/tools/run"]) {
        const draft = await post(route, { code: CODE, parameters, args: {} });
        assert.equal(draft.status, 400, `${route}: ${JSON.stringify(draft.body).slice(0, 300)}`);
        assert.deepEqual(draft.body, saved.body, `${route} answers exactly what saving answers`);
      }
    });
  }

  it("the editor's streamed draft run refuses them the same way", async () => {
    const res = await request(`${t.url}/api/runs`, author, { method: "POST", body: JSON.stringify({ draft: { code: CODE, parameters: [{ name: "x", type: "constructor" }] }, args: {} }) });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, "INVALID_ARGUMENT");
  });

  it("a draft's name and code follow the saved rules too (no 1 MB audit tool name)", async () => {
    const res = await post("/api/tools/run", { name: "x".repeat(5000), code: CODE, args: {} });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_ARGUMENT");
    assert.match(res.body.error, /^name /);
    // The code's size bound holds for a check as for a save or a draft run (a check parses it on the event loop).
    for (const route of ["/api/tools/check", "/api/tools/run"]) {
      const big = await post(route, { code: `${CODE}\n//${"x".repeat(300 * 1024)}`, args: {} });
      assert.equal(big.status, 400, route);
      assert.equal(big.body.where, "code", route);
    }
  });

  it("run arguments get the same depth bound on the API as over MCP (64 levels, the body around them one more)", async () => {
    const nest = (levels: number): unknown => (levels === 0 ? 1 : { a: nest(levels - 1) });
    const deepest = await post("/api/tools/run", { code: CODE, args: { deep: nest(63) } }); // args: 64 levels
    assert.equal(deepest.status, 200, JSON.stringify(deepest.body).slice(0, 200));
    const past = await post("/api/tools/run", { code: CODE, args: { deep: nest(64) } });
    assert.equal(past.status, 400);
    assert.equal(past.body.code, "INVALID_ARGUMENT");
    assert.match(past.body.error, /nested more than 6[45] levels deep/);
  });

  it("good draft parameters still validate arguments and fill defaults", async () => {
    const parameters = [{ name: "n", type: "int", required: true }, { name: "mode", enum: ["a", "b"], default: "a" }];
    const ok = await post("/api/tools/run", { code: CODE, parameters, args: { n: 2 } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(ok.body.result, { n: 2, mode: "a" });
    const bad = await post("/api/tools/run", { code: CODE, parameters, args: { n: "two" } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "INVALID_ARGUMENT");
    assert.equal((await post("/api/tools/check", { code: CODE, parameters })).status, 200);
  });

  it("the 2,500-parameter attack is refused fast and /healthz keeps answering promptly", async () => {
    const probeHealth = (latencies: number[], running: () => boolean) => (async () => {
      do {
        const started = performance.now();
        assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 5));
      } while (running());
    })();
    // Baseline in the same run (the machine is shared): /healthz alone for ~300 ms.
    const baseline: number[] = [];
    const baselineEnd = performance.now() + 300;
    await probeHealth(baseline, () => performance.now() < baselineEnd);
    const latencies: number[] = [];
    let attacking = true;
    const probe = probeHealth(latencies, () => attacking);
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      post(i % 2 === 0 ? "/api/tools/run" : "/api/tools/check", { code: CODE, parameters: many(2500), args: {} })));
    const attackMs = performance.now() - started;
    attacking = false;
    await probe;
    for (const answer of answers) assert.equal(answer.body.code, "INVALID_ARGUMENT");
    const worst = Math.max(...latencies);
    console.log(`8 concurrent 2,500-parameter drafts refused in ${attackMs.toFixed(0)} ms; /healthz worst ${worst.toFixed(1)} ms over ${latencies.length} probes (baseline worst ${Math.max(...baseline).toFixed(1)} ms over ${baseline.length})`);
    assert.ok(latencies.length > 0);
    // Before the fix one stall was 7–17 s. The bound scales with the same run's baseline, so a
    // crowded machine (slow /healthz even alone) does not fail it while a real stall still does.
    const bound = Math.max(1000, 4 * Math.max(...baseline) + 500);
    assert.ok(worst < bound, `/healthz stalled ${worst.toFixed(0)} ms (bound ${bound.toFixed(0)} ms)`);
    assert.ok(attackMs < 5000, `refusing took ${attackMs.toFixed(0)} ms`);
  });

  it("the largest schema the caps allow compiles in a bounded time (enums compile to loops)", () => {
    let round = 0;
    const compileMs = (make: (suffix: string) => unknown) => {
      const times = [0, 1, 2].map(() => {
        const suffix = `r${round++}`;
        const schema = parametersToJsonSchema(toParameterDecls(parseToolParameters(make(suffix))));
        const started = performance.now();
        try { validateArguments(schema, {}, "probe"); } catch { /* required arguments are missing: only the compile matters */ }
        return performance.now() - started;
      });
      return times.sort((a, b) => a - b)[1]!;
    };
    const plain = compileMs((suffix) => Array.from({ length: 64 }, (_, i) => ({ name: `p${i}_${suffix}`, required: true })));
    // 64 parameters of 180-value enums: just under the 64 KiB schema cap.
    const enums = compileMs((suffix) => Array.from({ length: 64 }, (_, i) => ({ name: `p${i}_${suffix}`, required: true, enum: Array.from({ length: 180 }, (_, j) => `${j}`) })));
    console.log(`compile (median of 3): 64 plain parameters ${plain.toFixed(1)} ms; 64 × 180-value enums (64 KiB) ${enums.toFixed(1)} ms`);
    assert.ok(enums < Math.max(6 * plain, 50), `the largest allowed schema took ${enums.toFixed(0)} ms against ${plain.toFixed(0)} ms for a plain one`);
  });

  it("a stored tool whose parameters no longer validate fails as INVALID_ARGUMENT, not 500", async () => {
    const input = parseUserToolInput({ name: "legacy", code: CODE });
    const tool = await t.app.store.createUserTool(authorId, { ...input, parameters: [{ name: "x", type: "constructor" as "string" }] });
    const res = await post(`/api/tools/${tool.id}/run`, { args: {} });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, "INVALID_ARGUMENT");
  });

  it("ajv compile errors are INVALID_ARGUMENT, and validators are cached by the schema's hash", () => {
    assert.throws(() => validateArguments({ type: "object", properties: { x: { type: "constructor" } } }, {}, "weird"), (e: any) => e.code === "INVALID_ARGUMENT" && /weird/.test(e.message));
    const schema = () => ({ type: "object", properties: { [`k${process.pid}`]: { type: "string" } } });
    const before = compiledValidatorCount();
    validateArguments(schema(), {}, "a");
    validateArguments(schema(), {}, "b");
    validateArguments(schema(), {}, "c");
    assert.equal(compiledValidatorCount() - before, 1, "three equal schemas (distinct objects) compile once");
  });

  it("MCP's save_user_tool refuses the same parameter lists with the same message", async () => {
    const mcpUser = await t.userWithToken("assistant", { grants: ["knot.tools.author", "knot.mcp"] });
    const { client } = await connect(t.url, mcpUser.token);
    try {
      // (A list that is not an array of objects is already refused by save_user_tool's own schema.)
      for (const [name, parameters, where] of BAD.filter(([, list]) => Array.isArray(list) && list.every((item) => typeof item === "object"))) {
        const result = await client.callTool({ name: "save_user_tool", arguments: { name: "via_mcp", code: CODE, parameters } });
        assert.equal(result.isError, true, name);
        const text = (result.content as Array<{ text: string }>)[0]!.text;
        assert.match(text, where, `${name}: ${text.slice(0, 200)}`);
      }
    } finally {
      await client.close();
    }
  });
});
