/**
 * Attack: freeze a sandbox worker by making its `import()` rewrite quadratic. Every site was
 * rewritten by rebuilding the whole source, so a 256 KB module of `import(0);` (26,000 sites) cost
 * gigabytes of copying on the worker's thread — no timer, heartbeat or wall limit could run, and
 * the pool killed the worker with every other user's runs on it. The rewrite is now one pass.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { GLOBAL_NAMES } from "../../sandbox/guest/bindings.ts";
import { rewriteDynamicImports } from "../../sandbox/worker/dynamic-import-rewrite.ts";

test("every import() site is renamed, the rest of the source kept as it was", () => {
  const source = `const a = import("x");\nconst b = import /* c */ ("y").then(() => import(\`z\`));\n// import("not code")\nexport default () => 1;\n`;
  const out = rewriteDynamicImports(source);
  const name = GLOBAL_NAMES.dynamicImport;
  assert.equal(out, source.replace('import("x")', `${name}("x")`).replace('import /* c */ ("y")', `${name} /* c */ ("y")`).replace("import(`z`)", `${name}(\`z\`)`));
  assert.equal(rewriteDynamicImports("export default 1;\n"), "export default 1;\n");
});

test("a module of 26,000 import() sites is rewritten in one pass, not one copy of the source per site", () => {
  const source = `${"import(0);".repeat(26_000)}\nexport default () => 1;\n`;
  const started = process.cpuUsage();
  const out = rewriteDynamicImports(source);
  const { user, system } = process.cpuUsage(started);
  const ms = (user + system) / 1000;
  assert.equal(out.split(GLOBAL_NAMES.dynamicImport).length - 1, 26_000);
  // Linear work is tens of ms here (the parse); the quadratic rewrite took many seconds.
  assert.ok(ms < 3_000, `the rewrite took ${ms.toFixed(0)} ms of CPU`);
});
