import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { MAX_MODULE_GRAPH_CHARS } from "../../sandbox/protocol.ts";
import { assertError, assertOk, createTestPool, runTool } from "./harness.ts";

let pool: SandboxPool;
before(() => {
  pool = createTestPool();
});
after(() => pool.close());

/** What a host's resolveModule might answer: a plugin with two client modules and a user lib. */
const MODULES: Record<string, string> = {
  "plugin:metrics": `import { tidy } from "plugin:metrics/format"; export class Client { label(word) { return "metrics:" + tidy(word) } }`,
  "plugin:metrics/format": `export const tidy = (word) => word.trim().toUpperCase();`,
  "lib:shared": `import { getString } from "knot:tool"; export const greet = () => "hi " + getString("who", "nobody");`,
  "plugin:broken": `export const = 1;`,
  "plugin:sneaky": `import fs from "fs"; export default fs;`,
};

function resolver(seen: string[]) {
  return async (specifier: string): Promise<string | null> => {
    seen.push(specifier);
    return MODULES[specifier] ?? null;
  };
}

test("plugin:<name>, plugin:<name>/<stem> and lib:<name> come from hooks.resolveModule; siblings import by full name", async () => {
  const seen: string[] = [];
  const source = `import { Client } from "plugin:metrics"; import * as fmt from "plugin:metrics/format"; import { greet } from "lib:shared";
    export default () => [new Client().label("  cpu "), fmt.tidy("x"), greet()]`;
  const outcome = await runTool(pool, source, { params: { who: "ann" }, hooks: { resolveModule: resolver(seen) } });
  assert.deepEqual(assertOk(outcome), { kind: "json", value: ["metrics:CPU", "X", "hi ann"] });
  assert.deepEqual([...seen].sort(), ["lib:shared", "plugin:metrics", "plugin:metrics/format"], "each module is resolved once per run");
});

test("a module the host does not grant is MODULE_NOT_ALLOWED, naming the specifier", async () => {
  const outcome = await runTool(pool, `import x from "plugin:secret"; export default () => x`, { hooks: { resolveModule: resolver([]) } });
  assertError(outcome, "MODULE_NOT_ALLOWED", /"plugin:secret" is not available to this tool/);
  const nested = await runTool(pool, `import fs from "plugin:sneaky"; export default () => 1`, { hooks: { resolveModule: resolver([]) } });
  assertError(nested, "MODULE_NOT_ALLOWED", /"fs" is not allowed/);
});

test("a module that does not parse is SYNTAX_ERROR, naming where", async () => {
  assertError(await runTool(pool, `export default () => {`), "SYNTAX_ERROR", /tool:test:1/);
  const outcome = await runTool(pool, `import x from "plugin:broken"; export default () => x`, { hooks: { resolveModule: resolver([]) } });
  assertError(outcome, "SYNTAX_ERROR", /plugin:broken/);
});

test("specifiers outside the allowed forms never reach resolveModule", async () => {
  const seen: string[] = [];
  for (const specifier of ["fs", "node:fs", "./local.js", "../up.js", "/etc/passwd", "https://example.com/x.js", "plugin:Metrics", "plugin:a/b/c", "lib:", "knot:internal/runtime.ts", "knot-internal:run-tool", "./runtime.ts"]) {
    const outcome = await runTool(pool, `import * as m from ${JSON.stringify(specifier)}; export default () => 1`, { hooks: { resolveModule: resolver(seen) } });
    assertError(outcome, "MODULE_NOT_ALLOWED", new RegExp(`import ${JSON.stringify(specifier).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is not allowed`));
  }
  assert.deepEqual(seen, []);
});

test("a resolveModule that throws fails the run without taking the pool down", async () => {
  const outcome = await runTool(pool, `import x from "lib:boom"; export default () => x`, {
    hooks: {
      resolveModule: () => {
        throw new Error("store is down /var/secret/path");
      },
    },
  });
  assertError(outcome, "INTERNAL");
  assert.doesNotMatch(JSON.stringify(outcome), /secret/);
});

test("a module set shipped with the job links without asking the host; the import rules still apply to it", async () => {
  const seen: string[] = [];
  const source = `import { Client } from "plugin:metrics"; import { greet } from "lib:shared"; export default () => [new Client().label(" a "), greet()]`;
  const shipped = { "plugin:metrics": MODULES["plugin:metrics"]!, "plugin:metrics/format": MODULES["plugin:metrics/format"]!, "lib:shared": MODULES["lib:shared"]! };
  const outcome = await runTool(pool, source, { params: { who: "bo" }, modules: shipped, hooks: { resolveModule: resolver(seen) } });
  assert.deepEqual(assertOk(outcome), { kind: "json", value: ["metrics:A", "hi bo"] });
  assert.deepEqual(seen, [], "nothing was asked of the host");

  // A specifier the host refused (null) is refused without a round trip; one it did not ship is asked for.
  const refused = await runTool(pool, `import x from "lib:secret"; export default () => x`, { modules: { "lib:secret": null }, hooks: { resolveModule: resolver(seen) } });
  assertError(refused, "MODULE_NOT_ALLOWED", /"lib:secret" is not available to this tool/);
  assert.deepEqual(seen, []);
  const partial = await runTool(pool, `import { Client } from "plugin:metrics"; export default () => new Client().label("b")`, {
    modules: { "plugin:metrics": MODULES["plugin:metrics"]! },
    hooks: { resolveModule: resolver(seen) },
  });
  assert.deepEqual(assertOk(partial), { kind: "text", text: "metrics:B" });
  assert.deepEqual(seen, ["plugin:metrics/format"]);

  // Shipping a source under a forbidden name grants nothing: the linker's rules come first.
  for (const specifier of ["fs", "knot-internal:run-tool", "knot:internal/guest.js"]) {
    const outcome = await runTool(pool, `import * as m from ${JSON.stringify(specifier)}; export default () => Object.keys(m)`, { modules: { [specifier]: "export const x = 1;" } });
    assertError(outcome, "MODULE_NOT_ALLOWED", /is not allowed/);
  }
  // A malformed set is the host's programming error: run() rejects it.
  await assert.rejects(runTool(pool, "export default () => 1", { modules: { "lib:x": 5 } as never }), /job\.modules/);
});

test("the worker's own module limits hold for a shipped set: at most 64 modules, 1 MiB of code in all", async () => {
  // A chain lib:m0 → lib:m1 → … → lib:m64: 65 modules besides the tool.
  const chain: Record<string, string> = {};
  for (let i = 0; i <= 64; i++) chain[`lib:m${i}`] = i < 64 ? `import x from "lib:m${i + 1}"; export default x;` : "export default 1;";
  const seen: string[] = [];
  assertError(await runTool(pool, `import x from "lib:m0"; export default () => x`, { modules: chain, hooks: { resolveModule: resolver(seen) } }), "MODULE_NOT_ALLOWED", /at most 64 modules/);
  const within = Object.fromEntries(Object.entries(chain).slice(-63));
  assertOk(await runTool(pool, `import x from "lib:m2"; export default () => x`, { modules: within, hooks: { resolveModule: resolver(seen) } }));
  const huge = `export default ${JSON.stringify("x".repeat(MAX_MODULE_GRAPH_CHARS))};`;
  assertError(await runTool(pool, `import x from "lib:big"; export default () => x.length`, { modules: { "lib:big": huge }, hooks: { resolveModule: resolver(seen) } }), "MODULE_NOT_ALLOWED", /lib:big.*too large.*at most 1,048,576 characters/);
  // The budget is the graph's, not each module's: two halves go over it together.
  const half = `export default ${JSON.stringify("x".repeat(MAX_MODULE_GRAPH_CHARS / 2))};`;
  const halves = { "lib:h1": half, "lib:h2": half };
  assertError(await runTool(pool, `import a from "lib:h1"; import b from "lib:h2"; export default () => a.length + b.length`, { modules: halves, hooks: { resolveModule: resolver(seen) } }), "MODULE_NOT_ALLOWED", /lib:h2.*too large/);
  assertError(await runTool(pool, `export default () => ${JSON.stringify("x".repeat(MAX_MODULE_GRAPH_CHARS))}.length`), "MODULE_NOT_ALLOWED", /the tool is too large/);
  assert.deepEqual(seen, [], "every module came with the job");
});

test("a lib shared under the longest qualified name (64-character owner __ 64-character name) links; a longer name does not", async () => {
  const longest = `lib:${"o".repeat(64)}__${"n".repeat(64)}`;
  const seen: string[] = [];
  assertOk(await runTool(pool, `import x from ${JSON.stringify(longest)}; export default () => x`, { modules: { [longest]: "export default 7;" }, hooks: { resolveModule: resolver(seen) } }));
  const tooLong = `lib:${"o".repeat(64)}__${"n".repeat(65)}`;
  assertError(await runTool(pool, `import x from ${JSON.stringify(tooLong)}; export default () => x`, { modules: { [tooLong]: "export default 7;" }, hooks: { resolveModule: resolver(seen) } }), "MODULE_NOT_ALLOWED", /is not allowed/);
  assert.deepEqual(seen, []);
});
