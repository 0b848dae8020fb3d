import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { listImports, prepareSource } from "../../client-modules/index.ts";

// client-modules sits between src/ and sandbox/: src → client-modules → sandbox, never back.
const folder = fileURLToPath(new URL("../../client-modules/", import.meta.url));

function importsOf(file: string): string[] {
  const prepared = prepareSource(fs.readFileSync(path.join(folder, file), "utf8"), "ts", file);
  assert.equal(prepared.ok, true, file);
  const listed = prepared.ok ? listImports(prepared.js) : null;
  assert.equal(listed?.ok, true, file);
  return listed?.ok ? listed.imports.map((i) => i.specifier) : [];
}

// The shared name grammars (guest-safe pure data, also imported by the sandbox and src/).
const SHARED = new Set(["../sandbox/guest/names.ts", "../sandbox/worker/linear-scopes.ts"]);

test("client-modules imports neither src/ nor isolated-vm, and acorn only through parse.ts", () => {
  const files = fs.readdirSync(folder).filter((f) => f.endsWith(".ts"));
  assert.ok(files.includes("parse.ts") && files.includes("index.ts"));
  for (const file of files) {
    for (const specifier of importsOf(file)) {
      const where = `${file} imports ${specifier}`;
      assert.ok(specifier.startsWith("./") || SHARED.has(specifier) || specifier.startsWith("node:") || specifier.startsWith("acorn"), where);
      assert.doesNotMatch(specifier, /(^|\/)src\/|isolated-vm/, where);
      if (specifier.startsWith("acorn")) assert.equal(file, "parse.ts", where);
    }
  }
  // type-only imports vanish when stripped; acorn's parser itself comes through the linear-scopes plugin
  assert.deepEqual(importsOf("parse.ts").filter((s) => s.startsWith("acorn") || s.includes("linear-scopes")).sort(), ["../sandbox/worker/linear-scopes.ts", "acorn-walk"]);
});
