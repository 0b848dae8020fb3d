/**
 * Attack: a module of many short declarations in one scope made acorn's parse quadratic (a 256 KB
 * module took ~12 s), stalling the server's event loop (import scans, lint) or a sandbox worker's
 * main thread (the import() rewrite) outside any run limit. With linear scope bookkeeping the same
 * module parses in well under a second; redeclarations are still reported as acorn reports them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { lintModule, listImports } from "../../client-modules/index.ts";
import { rewriteDynamicImports } from "../../sandbox/worker/dynamic-import-rewrite.ts";

/** `let a,b,…` with ~37,000 distinct short names, then `var x,x,…`: ~256 KB of valid module code. */
function manyNames(size: number): string {
  const first = "abcdefghijklmnopqrstuvwyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$";
  const rest = `${first}0123456789`;
  const names: string[] = [];
  const reserved = new Set(["for", "int", "let", "new", "try", "var"]);
  for (const a of first) for (const b of rest) for (const c of rest) if (names.length < size / 7 && !reserved.has(`${a}${b}${c}`)) names.push(`${a}${b}${c}`);
  const head = `// import( lib: plugin:\nlet ${names.join(",")};\nvar `;
  return `${head}${"x,".repeat(Math.floor((size - head.length - 40) / 2))}x;\nexport default () => 1;\n`;
}

test("a module of ~37,000 declarations in one scope parses in linear time on the host and in the worker", () => {
  const source = manyNames(256 * 1024);
  assert.equal(listImports(source).ok, true, "the module is valid");
  for (const [what, parse] of [["listImports", () => listImports(source)], ["lintModule", () => lintModule(source, { language: "js", filename: "tool.js", policy: () => true })], ["rewriteDynamicImports", () => rewriteDynamicImports(source)]] as const) {
    const started = performance.now();
    parse();
    const took = performance.now() - started;
    // Quadratic it took 7–14 s each on this machine; linear it takes tens of milliseconds.
    assert.ok(took < 2_000, `${what} took ${Math.round(took)} ms`);
  }
});

test("redeclarations are still refused, with acorn's message", () => {
  for (const source of ["let a; let a;", "let a; var a;", "const b = 1; function b() {}", "export { nope };"]) {
    const listed = listImports(source);
    assert.equal(listed.ok, false, source);
    assert.match(!listed.ok ? listed.diagnostics[0]!.message : "", /has already been declared|Export 'nope' is not defined/, source);
  }
  assert.equal(listImports("var a; var a; function f() { let a; }\nexport { a };").ok, true);
});
