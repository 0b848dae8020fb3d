import assert from "node:assert/strict";
import { test } from "node:test";
import { lintModule, prepareSource, type ImportPolicy } from "../../client-modules/index.ts";

const allowKnot: ImportPolicy = (s) => (s.startsWith("knot:") ? true : `${s} is refused here`);
const lint = (source: string, extra: Partial<Parameters<typeof lintModule>[1]> = {}) =>
  lintModule(source, { language: "js", filename: "tool.js", policy: allowKnot, ...extra });

test("a JavaScript syntax error carries acorn's message and its 1-based line and column", () => {
  const result = lint("const a = 1;\nconst b = ;\n");
  assert.equal(result.js, null);
  assert.equal(result.diagnostics.length, 1);
  const [d] = result.diagnostics;
  assert.equal(d?.code, "SYNTAX_ERROR");
  assert.equal(d?.severity, "error");
  assert.equal(d?.line, 2);
  assert.equal(d?.column, 11); // the `;` where an expression was expected
  assert.equal(d?.message, "Unexpected token"); // no "(2:10)" suffix: the position travels separately
});

test("a syntax error deep in a line after tabs and unicode still points at the right column", () => {
  const d = lint("// é ✓\n\tlet x = { a: 1,, };").diagnostics[0];
  assert.equal(d?.line, 2);
  assert.equal(d?.column, "\tlet x = { a: 1,".length + 1);
});

test("top-level await and modern syntax parse; a top-level return does not", () => {
  assert.notEqual(lint('import { getInt } from "knot:tool";\nconst n = await Promise.resolve(getInt("n") ?? 1);\nclass A { #x = 1; static { } }').js, null);
  const d = lint("return 1;").diagnostics[0];
  assert.equal(d?.code, "SYNTAX_ERROR");
  assert.equal(d?.line, 1);
});

test("TypeScript: types are removed and every position is kept", () => {
  const source = [
    "interface Options {",
    "  hours: number;",
    "}",
    "type Id = string | number;",
    "export function run(options: Options, id?: Id): string {",
    "  const value = (options.hours as number) + 1;",
    "  return `${id}:${value}`;",
    "}",
  ].join("\n");
  const prepared = prepareSource(source, "ts", "tool.ts");
  assert.equal(prepared.ok, true);
  if (!prepared.ok) return;
  assert.doesNotMatch(prepared.js, /interface|Options\s*[;{]|: number|as number|\?:/);
  assert.equal(prepared.js.length, source.length);
  const sourceLines = source.split("\n");
  const jsLines = prepared.js.split("\n");
  assert.equal(jsLines.length, sourceLines.length);
  jsLines.forEach((line, i) => assert.equal(line.length, sourceLines[i]?.length, `line ${i + 1} keeps its length`));
  assert.equal(jsLines[6], sourceLines[6]); // a line without types is untouched
  // The stripped module really runs.
  assert.match(prepared.js, /export function run\(options\s*, id\s*\)/);
});

test("TypeScript: a refused import is reported at the column the author wrote", () => {
  const source = 'type A = { x: number };\nconst n: number = 1;\nimport fs from "node:fs";\n';
  const result = lint(source, { language: "ts", filename: "tool.ts" });
  const d = result.diagnostics[0];
  assert.equal(d?.code, "MODULE_NOT_ALLOWED");
  assert.equal(d?.line, 3);
  assert.equal(d?.column, source.split("\n")[2]!.indexOf('"node:fs"') + 1);
});

test("TypeScript: an enum is rejected with its line, as are other non-erasable forms", () => {
  const result = lint("const a: number = 1;\n\n  enum Color { Red, Green }\n", { language: "ts", filename: "tool.ts" });
  assert.equal(result.js, null);
  const d = result.diagnostics[0];
  assert.equal(d?.code, "TS_UNSUPPORTED_SYNTAX");
  assert.equal(d?.line, 3);
  assert.equal(d?.column, 3); // the line's first character: Node names the line, not the column
  assert.match(d?.message ?? "", /enum/);
  for (const source of ["namespace N { export const x = 1; }", "class A { constructor(private x: number) {} }"]) {
    assert.equal(prepareSource(source, "ts", "t.ts").ok, false, source);
  }
});

test("TypeScript: invalid syntax is a SYNTAX_ERROR on its line", () => {
  const result = prepareSource("const a = 1;\nlet b: = 2;\n", "ts", "tool.ts");
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.diagnostics[0]?.code, "SYNTAX_ERROR");
  assert.equal(result.diagnostics[0]?.line, 2);
});

test("JavaScript passes through prepareSource unchanged", () => {
  assert.deepEqual(prepareSource("let a = 1 // : number", "js", "a.js"), { ok: true, js: "let a = 1 // : number" });
});

test("every refused import is an error naming the specifier and the reason; allowed code keeps its JS", () => {
  const result = lint('import fs from "fs";\nimport { user } from "knot:identity";\nexport * from "./x.js";\n');
  assert.equal(result.js, null);
  assert.deepEqual(
    result.diagnostics.map((d) => [d.code, d.line, d.column]),
    [
      ["MODULE_NOT_ALLOWED", 1, 16],
      ["MODULE_NOT_ALLOWED", 3, 15],
    ],
  );
  assert.match(result.diagnostics[0]!.message, /"fs".*fs is refused here/);
  const ok = lint('import { user } from "knot:identity";\nexport default () => user().name;');
  assert.deepEqual(ok.diagnostics, []);
  assert.equal(ok.js, 'import { user } from "knot:identity";\nexport default () => user().name;');
});

test("a computed import() is a warning for user tools and an error when strict", () => {
  const source = "export default async (r) => (await import(r.params.name)).x;";
  const loose = lint(source);
  assert.notEqual(loose.js, null);
  assert.deepEqual(loose.diagnostics.map((d) => [d.severity, d.code]), [["warning", "DYNAMIC_IMPORT_UNCHECKED"]]);
  const strict = lint(source, { strictDynamicImports: true });
  assert.equal(strict.js, null);
  assert.equal(strict.diagnostics[0]?.severity, "error");
  assert.equal(lint('export default async () => import("node:fs");').js, null); // a literal import() is checked like a static one
});

test("requireEntry warns (NO_ENTRY) only when nothing would run", () => {
  const entry = (source: string) =>
    lint(source, { requireEntry: true }).diagnostics.filter((d) => d.code === "NO_ENTRY").map((d) => d.severity);
  assert.deepEqual(entry("const x = 1;\nfunction helper() { return helper(); }"), ["warning"]);
  assert.deepEqual(entry("export const main = 1; // main\n"), []); // exported main (its shape is the sandbox's concern)
  assert.deepEqual(entry("export default function (request) { return 1; }"), []);
  assert.deepEqual(entry("function run(r) {}\nexport { run as main };"), []);
  assert.deepEqual(entry('import { returnString } from "knot:tool";\nif (true) returnString("hi");'), []);
  assert.deepEqual(entry("const el = () => console.log(1);"), ["warning"]); // the call is inside a function
  assert.deepEqual(lint("const x = 1;").diagnostics, []); // requireEntry off: no entry check
  const result = lint("const x = 1;", { requireEntry: true });
  assert.notEqual(result.js, null); // a warning never blocks
});
