/**
 * The module set the tool runner ships with a job (src/tools/module-set.ts): every static
 * plugin:/lib: import, transitively, as this caller's resolver answers it; nothing else.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collectModuleSet } from "../../src/tools/module-set.ts";

const SOURCES: Record<string, string> = {
  "plugin:metrics": `import { tidy } from "plugin:metrics/format"; export const label = (w) => tidy(w);`,
  "plugin:metrics/format": `import { pad } from "lib:pad"; export const tidy = (w) => pad(w.trim());`,
  "lib:pad": `export const pad = (w) => " " + w;`,
};

test("static plugin:/lib: imports are resolved transitively; refused ones ship as null; knot:* and dynamic imports are left out", () => {
  const asked: string[] = [];
  const resolve = (specifier: string) => {
    asked.push(specifier);
    return SOURCES[specifier] ?? null;
  };
  const source = `import { label } from "plugin:metrics"; import { user } from "knot:identity"; import x from "lib:secret";
    export { pad } from "lib:pad"; export default async () => [label("a"), await import("lib:dynamic")];`;
  assert.deepEqual(collectModuleSet(source, resolve), {
    "plugin:metrics": SOURCES["plugin:metrics"],
    "lib:secret": null,
    "lib:pad": SOURCES["lib:pad"],
    "plugin:metrics/format": SOURCES["plugin:metrics/format"],
  });
  assert.deepEqual([...asked].sort(), ["lib:pad", "lib:secret", "plugin:metrics", "plugin:metrics/format"], "each specifier is resolved once");
});

test("a tool without plugin:/lib: imports ships no set, and a source that does not parse ships none either", () => {
  assert.equal(collectModuleSet(`import { returnString } from "knot:tool"; returnString("hi")`, () => "x"), undefined);
  assert.equal(collectModuleSet(`import x from "plugin:a" +;`, () => "x"), undefined);
});

test("at most 64 modules are listed, even for an endless chain", () => {
  const chain = (specifier: string) => `import "lib:m${Number(specifier.slice(5)) + 1}"; export {};`;
  const set = collectModuleSet(`import "lib:m0";`, (specifier) => chain(specifier));
  assert.equal(Object.keys(set ?? {}).length, 64);
});
