/**
 * The trust boundary is visible in the tree (docs/architecture.md, "The zones"): sandbox/ never imports src/ or
 * client-modules/; the server side (sandbox/host, sandbox/index.ts) never loads the worker (so
 * isolated-vm stays out of the server process); each outside dependency enters through one file;
 * guest code imports only other guest files and is type-checked without Node types.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "acorn";
import { simple } from "acorn-walk";

const root = fileURLToPath(new URL("../../sandbox/", import.meta.url));

function sandboxFiles(): string[] {
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts")).sort();
}

/** Specifiers a file loads at run time (type-only imports are erased first). */
function runtimeImports(file: string): string[] {
  const js = stripTypeScriptTypes(fs.readFileSync(path.join(root, file), "utf8"), { mode: "strip" });
  const found: string[] = [];
  const ast = parse(js, { ecmaVersion: "latest", sourceType: "module" });
  simple(ast, {
    ImportDeclaration: (node) => void found.push(String(node.source.value)),
    ExportNamedDeclaration: (node) => void (node.source && found.push(String(node.source.value))),
    ExportAllDeclaration: (node) => void found.push(String(node.source.value)),
    ImportExpression: (node) => void found.push(node.source.type === "Literal" ? `dynamic:${String(node.source.value)}` : "<dynamic>"),
  });
  return found;
}

const resolved = (file: string, specifier: string): string => path.normalize(path.join(path.dirname(file), specifier));

test("sandbox/ imports neither src/ nor client-modules/, and nothing imports dynamically", () => {
  const files = sandboxFiles();
  assert.ok(files.length > 20);
  for (const file of files) {
    for (const specifier of runtimeImports(file)) {
      assert.ok(!specifier.startsWith("dynamic:") && specifier !== "<dynamic>", `${file} imports ${specifier}`);
      if (specifier.startsWith(".")) assert.ok(!resolved(file, specifier).startsWith(".."), `${file} imports ${specifier} outside sandbox/`);
    }
  }
});

test("each outside dependency enters through one file; only the worker loads the run-time ones", () => {
  // esbuild is the host's build step for our own guest files (host/guest-bundle.ts), never given user code.
  const seams: Record<string, string> = { "isolated-vm": "worker/ivm.ts", undici: "worker/http-client.ts", acorn: "worker/linear-scopes.ts", "acorn-walk": "worker/dynamic-import-rewrite.ts", esbuild: "host/guest-bundle.ts" };
  for (const file of sandboxFiles()) {
    for (const raw of runtimeImports(file)) {
      const specifier = raw.replace(/^dynamic:/, "");
      if (specifier.startsWith(".")) continue;
      if (specifier.startsWith("node:")) {
        assert.ok(!file.startsWith("guest/"), `guest ${file} imports ${specifier}`);
        continue;
      }
      assert.equal(seams[specifier], file, `${file} imports ${specifier}`);
    }
  }
});

test("the server side never loads worker code (isolated-vm stays behind the process wall)", () => {
  const serverSide = sandboxFiles().filter((file) => file.startsWith("host/") || !file.includes("/"));
  const reached = new Set<string>();
  const visit = (file: string): void => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const specifier of runtimeImports(file)) if (specifier.startsWith(".")) visit(resolved(file, specifier));
  };
  for (const file of serverSide) visit(file);
  assert.deepEqual([...reached].filter((file) => file.startsWith("worker/") || file.startsWith("guest/")), []);
});

test("guest modules import only guest modules, and their tsconfig has no Node types", () => {
  for (const file of sandboxFiles().filter((name) => name.startsWith("guest/"))) {
    for (const specifier of runtimeImports(file)) {
      assert.match(specifier, /^\.\/[a-z-]+\.ts$/, `${file} imports ${specifier}`);
      assert.ok(fs.existsSync(path.join(root, "guest", specifier)), `${file} imports missing ${specifier}`);
    }
  }
  const config = JSON.parse(fs.readFileSync(path.join(root, "guest", "tsconfig.json"), "utf8")) as { compilerOptions: { types: unknown; lib: unknown } };
  assert.deepEqual(config.compilerOptions.types, []);
  assert.deepEqual(config.compilerOptions.lib, ["ES2024"]);
});
