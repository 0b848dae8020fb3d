import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
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
