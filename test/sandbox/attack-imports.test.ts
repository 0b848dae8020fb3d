/**
 * Attack family: imports. Only knot:*, plugin:<name>[/<stem>] and lib:<name> link; Node builtins,
 * relative paths, absolute paths, URLs and internal guest modules are MODULE_NOT_ALLOWED, and
 * dynamic import() — in any spelling — never loads anything.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { SandboxPool } from "../../sandbox/index.ts";
import { ATTACK_LIMITS, assertError, assertHostUnharmed, assertOk, createMarker, createReadyPool, runTool, type Marker } from "./harness.ts";

let pool: SandboxPool;
let marker: Marker;
const asked: string[] = [];
const resolveModule = (specifier: string): string | null => {
  asked.push(specifier);
  return specifier === "lib:ok" ? "export const ok = 1;" : null;
};

before(async () => {
  pool = await createReadyPool();
  marker = createMarker();
});
after(() => pool.close());

test("static imports of builtins, files and URLs are MODULE_NOT_ALLOWED and never resolved", async () => {
  const specifiers = [
    "fs", "node:fs", "node:child_process", "child_process", "process", "module", "isolated-vm",
    "./sibling.js", "../../src/errors.ts", "/etc/passwd", `file://${marker.file}`,
    "https://example.com/x.js", "http://127.0.0.1:1/x.js", "data:text/javascript,export default 1",
    "knot:internal/runtime.ts", "knot-internal:run-tool", "knot:tool/../runtime", "plugin:", "plugin:x/../y", "lib:../x",
  ];
  for (const specifier of specifiers) {
    const forms = [`import x from ${JSON.stringify(specifier)};`, `export * from ${JSON.stringify(specifier)};`, `import ${JSON.stringify(specifier)};`];
    for (const form of forms) {
      assertError(await runTool(pool, `${form} export default () => 1`, { hooks: { resolveModule }, limits: ATTACK_LIMITS }), "MODULE_NOT_ALLOWED", /is not allowed/);
    }
  }
  assert.deepEqual(asked, []);
  await assertHostUnharmed(pool, marker);
});

test("dynamic import() rejects with MODULE_NOT_ALLOWED, in every spelling, even for allowed names", async () => {
  const source = `export default async () => {
      const out = [];
      const attempt = async (label, load) => { try { await load(); out.push(label + ": loaded") } catch (e) { out.push(label + ": " + (e.code ?? e.name + " " + e.message)) } };
      await attempt("fs", () => import("fs"));
      await attempt("node", () => import("node:child_process"));
      await attempt("comment", () => import /* hidden */ ("fs"));
      await attempt("newline", () => import
        ("fs"));
      await attempt("computed", () => import(["f", "s"].join("")));
      await attempt("allowed-name", () => import("knot:tool"));
      await attempt("lib", () => import("lib:ok"));
      await attempt("options", () => import("fs", { with: { type: "json" } }));
      await attempt("eval", () => eval('import("fs")'));
      await attempt("function", () => new Function('return import("fs")')());
      return out;
    }`;
  const value = (assertOk(await runTool(pool, source, { hooks: { resolveModule }, limits: ATTACK_LIMITS })) as { value: string[] }).value;
  assert.deepEqual(value.slice(0, 8), ["fs", "node", "comment", "newline", "computed", "allowed-name", "lib", "options"].map((l) => `${l}: MODULE_NOT_ALLOWED`));
  assert.deepEqual(value.slice(8), ["eval: Error Not supported", "function: Error Not supported"], "code built at run time is not rewritten; V8 refuses it");
  assert.deepEqual(asked, []);
  await assertHostUnharmed(pool, marker);
});

test("an uncaught dynamic import fails the run with MODULE_NOT_ALLOWED naming the specifier", async () => {
  assertError(await runTool(pool, `await import("node:fs");`, { limits: ATTACK_LIMITS }), "MODULE_NOT_ALLOWED", /import\("node:fs"\)/);
  assertError(await runTool(pool, `export default () => import("fs")`, { limits: ATTACK_LIMITS }), "MODULE_NOT_ALLOWED", /import\("fs"\)/);
  await assertHostUnharmed(pool, marker);
});

test("a granted module cannot smuggle a forbidden import either", async () => {
  const viaLib = (specifier: string): string | null => (specifier === "lib:evil" ? `export default () => import("fs");` : null);
  const outcome = await runTool(pool, `import evil from "lib:evil"; export default () => evil()`, { hooks: { resolveModule: viaLib }, limits: ATTACK_LIMITS });
  assertError(outcome, "MODULE_NOT_ALLOWED", /import\("fs"\)/);
  await assertHostUnharmed(pool, marker);
});
