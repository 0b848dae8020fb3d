import assert from "node:assert/strict";
import { test } from "node:test";
import { exportedNames, listImports, prepareSource } from "../../client-modules/index.ts";

function imports(js: string) {
  const listed = listImports(js);
  assert.equal(listed.ok, true, "parses");
  return listed.ok ? listed : { imports: [], warnings: [] };
}

test("static imports, side-effect imports and every export…from form are listed with positions", () => {
  const js = [
    'import a from "knot:tool";',
    'import "lib:setup";',
    'import * as ns from "plugin:metrics";',
    'export { b } from "plugin:metrics/format";',
    'export * from "node:fs";',
    'export * as c from "lib:dates";',
    'import data from "lib:json" with { type: "json" };',
  ].join("\n");
  const listed = imports(js).imports;
  assert.deepEqual(
    listed.map((i) => [i.specifier, i.line, i.column, i.dynamic]),
    [
      ["knot:tool", 1, 15, false],
      ["lib:setup", 2, 8, false],
      ["plugin:metrics", 3, 21, false],
      ["plugin:metrics/format", 4, 19, false],
      ["node:fs", 5, 15, false],
      ["lib:dates", 6, 20, false],
      ["lib:json", 7, 18, false],
    ],
  );
  assert.equal(listed[0]?.endColumn, 15 + '"knot:tool"'.length);
});

test("import() with a literal (or substitution-free template) is listed as dynamic, wherever it is", () => {
  const js = 'export default async function () {\n  const m = await import("lib:a");\n  return import(`fs`);\n}';
  assert.deepEqual(
    imports(js).imports.map((i) => [i.specifier, i.line, i.column, i.dynamic]),
    [
      ["lib:a", 2, 26, true],
      ["fs", 3, 17, true],
    ],
  );
});

test("import() with a computed specifier is not listed but warned about with its position", () => {
  const listed = imports('const name = "fs";\nawait import(name);\nawait import(`node:${name}`);');
  assert.deepEqual(listed.imports, []);
  assert.deepEqual(
    listed.warnings.map((w) => [w.severity, w.code, w.line, w.column]),
    [
      ["warning", "DYNAMIC_IMPORT_UNCHECKED", 2, 7],
      ["warning", "DYNAMIC_IMPORT_UNCHECKED", 3, 7],
    ],
  );
});

test("strings that only look like imports are not imports", () => {
  const js = 'const s = "import x from \'fs\'";\n// import y from "node:fs"\nconst o = { import: 1 };';
  assert.deepEqual(imports(js).imports, []);
});

test("a syntax error is a diagnostic, not an exception", () => {
  const listed = listImports('import { a } from "knot:tool"\nimport {');
  assert.equal(listed.ok, false);
  if (listed.ok) return;
  assert.equal(listed.diagnostics[0]?.code, "SYNTAX_ERROR");
  assert.equal(listed.diagnostics[0]?.line, 2);
});

test("TypeScript type-only imports vanish with stripping; value imports stay", () => {
  const prepared = prepareSource('import type { X } from "node:fs";\nimport { type Y, user } from "knot:identity";\n', "ts", "t.ts");
  assert.equal(prepared.ok, true);
  if (!prepared.ok) return;
  assert.deepEqual(imports(prepared.js).imports.map((i) => i.specifier), ["knot:identity"]);
});

test("exportedNames lists every named export form, in order, without default", () => {
  const js = [
    "const o = {}, x = 1, z = 2;",
    "export const { a, b: [c, ...d] } = o, e = 3;",
    "export function f() {}",
    "export async function* g() {}",
    "export class K {}",
    'export { x as y, z as "q-r", x };',
    'export * as ns from "lib:m";',
    'export * from "lib:all";',
    "export default 1;",
  ].join("\n");
  assert.deepEqual(exportedNames(js), ["a", "c", "d", "e", "f", "g", "K", "y", "q-r", "x", "ns"]);
  assert.deepEqual(exportedNames("export default function main() {}"), []);
  assert.deepEqual(exportedNames("export const = ;"), []); // does not parse: nothing to complete
});
