/**
 * The HTTP edge's layering, read from the import statements of src/** (type-only imports count:
 * they tie folders together just the same). `/mcp` is mounted by src/http/routes/mcp-route.ts, so
 * http may import mcp and mcp never imports http; the web UI builds on http, never the reverse
 * (cookie and CSRF code live in src/auth/). docs/architecture.md draws the picture.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const src = fileURLToPath(new URL("../../src/", import.meta.url));

/** Folder → folder edges, each with the file imports that make it ("src/a/x.ts -> src/b/y.ts"). */
function folderGraph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  const files = (fs.readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith(".ts"));
  for (const file of files) {
    const text = fs.readFileSync(path.join(src, file), "utf8");
    for (const specifier of importsOf(text)) {
      if (!specifier.startsWith(".")) continue;
      const target = path.normalize(path.join(path.dirname(file), specifier));
      if (target.startsWith("..")) continue;
      const from = topFolder(file);
      const to = topFolder(target);
      if (from === to) continue;
      const key = `${from} -> ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), `src/${file} -> src/${target}`]);
    }
  }
  return edges;
}

/** Specifiers of static imports and re-exports (type-only included), side-effect imports and literal dynamic imports. */
function importsOf(text: string): string[] {
  const found: string[] = [];
  const patterns = [/^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/gm, /^\s*import\s*["']([^"']+)["']/gm, /\bimport\(\s*["']([^"']+)["']\s*\)/g];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

const topFolder = (file: string): string => (file.includes(path.sep) ? file.split(path.sep)[0]! : "(root)");

/** Imports that would point the wrong way. */
const FORBIDDEN: readonly (readonly [string, string])[] = [
  ["http", "web"],
  ["mcp", "http"],
  // credentials, cookies and CSRF are below every surface
  ["auth", "http"],
  ["auth", "web"],
  ["auth", "mcp"],
];
/** Folder pairs that must not import each other both ways. */
const NO_CYCLE: readonly (readonly [string, string])[] = [
  ["mcp", "http"],
  ["http", "web"],
  ["auth", "web"],
  ["auth", "http"],
];

test("the import reader finds static, type-only, multi-line, side-effect and dynamic imports", () => {
  const text = 'import a from "./a.ts";\nimport type {\n  B,\n} from "../b.ts";\nexport { c } from "./c.ts";\nimport "./d.ts";\nconst e = await import("./e.ts");\nconst s = "import x from \'./not-at-line-start.ts\'";';
  assert.deepEqual(importsOf(text).sort(), ["../b.ts", "./a.ts", "./c.ts", "./d.ts", "./e.ts"]);
});

test("the folder graph sees the edges that are meant to exist", () => {
  const graph = folderGraph();
  for (const edge of ["web -> http", "http -> mcp", "http -> auth", "web -> auth", "(root) -> http"]) assert.ok(graph.has(edge), `expected ${edge}`);
});

test("src/http imports nothing from src/web, src/mcp nothing from src/http, src/auth no surface", () => {
  const graph = folderGraph();
  for (const [from, to] of FORBIDDEN) assert.deepEqual(graph.get(`${from} -> ${to}`) ?? [], [], `${from}/ must not import ${to}/`);
});

test("no folder cycle between mcp and http, http and web, or auth and either", () => {
  const graph = folderGraph();
  for (const [a, b] of NO_CYCLE) {
    const both = graph.has(`${a} -> ${b}`) && graph.has(`${b} -> ${a}`);
    assert.ok(!both, `${a}/ and ${b}/ import each other: ${[...(graph.get(`${a} -> ${b}`) ?? []), ...(graph.get(`${b} -> ${a}`) ?? [])].join("; ")}`);
  }
});
