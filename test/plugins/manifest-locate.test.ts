import { test } from "node:test";
import assert from "node:assert/strict";
import { extractMetadataBlock } from "../../src/plugins/manifest/extract-block.ts";
import type { MetadataBlock } from "../../src/plugins/manifest/extract-block.ts";
import { createKeyLocator } from "../../src/plugins/manifest/locate-key.ts";
import { formatKeyPath } from "../../src/plugins/manifest/key-path.ts";

function blockOf(source: string): MetadataBlock {
  const result = extractMetadataBlock(source);
  assert.ok(result.ok, "block should extract");
  return result.block;
}

const SOURCE = [
  "#!/usr/bin/env node", //                                    1
  "// A plugin.", //                                           2
  "// /// script", //                                          3
  '// requires-runtime = ">=0.1"', //                          4
  "//", //                                                     5
  "// [tool.knot]", //                                         6
  '// version = "1.0.0"', //                                   7
  "// permissions = [", //                                     8
  '//   "export",', //                                         9
  "// ]", //                                                   10
  "// [[tool.knot.mcp_tools]]", //                             11
  '// handler = "a"', //                                       12
  "// [[tool.knot.mcp_tools.parameters]]", //                  13
  '// name = "x"', //                                          14
  "// [[tool.knot.mcp_tools]]   # second tool", //             15
  '// description = """', //                                  16
  "// name = not a key, inside a multi-line string", //        17
  '// """', //                                                18
  "// [[tool.knot.mcp_tools.parameters]]", //                  19
  '// name = "y"', //                                          20
  "// [[ tool.knot.mcp_tools.parameters ]]", //                21
  '// "type" = "int"', //                                      22
  "// [[tool.knot.handlers]]", //                              23
  "// [tool.knot.extra]", //                                   24
  '// deep.key = 1', //                                        25
  "// ///", //                                                 26
  "export const a = 1;",
].join("\n");

test("locator finds keys and headers, counting [[array]] elements per parent", () => {
  const locate = createKeyLocator(blockOf(SOURCE));
  const cases: Array<[Array<string | number>, number]> = [
    [["requires-runtime"], 4],
    [["tool", "knot"], 6],
    [["tool", "knot", "version"], 7],
    [["tool", "knot", "permissions", 0], 8], // inside a multi-line array: the key's line
    [["tool", "knot", "mcp_tools", 0], 11],
    [["tool", "knot", "mcp_tools", 0, "handler"], 12],
    [["tool", "knot", "mcp_tools", 0, "description"], 11], // missing key: its table header
    [["tool", "knot", "mcp_tools", 0, "parameters", 0, "name"], 14],
    [["tool", "knot", "mcp_tools", 1], 15],
    [["tool", "knot", "mcp_tools", 1, "description"], 16],
    [["tool", "knot", "mcp_tools", 1, "name"], 15], // line 17 is string content, not a key
    [["tool", "knot", "mcp_tools", 1, "parameters", 0, "name"], 20], // index restarts per tool
    [["tool", "knot", "mcp_tools", 1, "parameters", 1, "type"], 22], // spaced header, quoted key
    [["tool", "knot", "mcp_tools", 1, "parameters", 1, "enum", 3], 21],
    [["tool", "knot", "handlers", 0, "handler"], 23],
    [["tool", "knot", "extra", "deep", "key"], 25], // dotted key
    [["tool", "knot", "extra"], 24],
    [["tool", "other"], 3], // nothing written: the `// /// script` line
    [["nowhere"], 3],
  ];
  for (const [path, line] of cases) assert.equal(locate.lineOf(path), line, formatKeyPath(path));
});

test("locator works for a block with no leading lines and inline tables", () => {
  const locate = createKeyLocator(
    blockOf(['// /// script', '// [tool.knot]', '// mcp_tools = [{ handler = "a" }]', '// ///'].join("\n")),
  );
  assert.equal(locate.lineOf(["tool", "knot", "mcp_tools", 0, "description"]), 3);
  assert.equal(locate.lineOf(["tool", "knot", "version"]), 2);
});

test("formatKeyPath writes TOML-style paths", () => {
  assert.equal(formatKeyPath(["tool", "knot", "mcp_tools", 1, "parameters", 0, "type"]), "tool.knot.mcp_tools[1].parameters[0].type");
  assert.equal(formatKeyPath([0, "type"]), "[0].type");
  assert.equal(formatKeyPath(["tool", "odd key"]), 'tool."odd key"');
  assert.equal(formatKeyPath([]), "");
});

test("extractMetadataBlock strips `//` and one space, keeps file line numbers", () => {
  const result = extractMetadataBlock("\n/* licence\n   text */\n// /// script\n//\n//   indented = 1\n//a = 2\n// ///\ncode();\n");
  assert.deepEqual(result, { ok: true, block: { openLine: 4, firstInnerLine: 5, lines: ["", "  indented = 1", "a = 2"] } });
});

test("extractMetadataBlock refuses missing, late, unterminated and broken blocks", () => {
  assert.deepEqual(pick(extractMetadataBlock("export const a = 1;\n")), { ok: false, line: 1 });
  assert.deepEqual(pick(extractMetadataBlock("")), { ok: false, line: 1 });
  assert.deepEqual(pick(extractMetadataBlock("const a = 1;\n// /// script\n// ///\n")), { ok: false, line: 2 });
  assert.deepEqual(pick(extractMetadataBlock("/* x */ const a = 1;\n// /// script\n// ///\n")), { ok: false, line: 2 });
  assert.deepEqual(pick(extractMetadataBlock("// /// script\n// [tool.knot]\n")), { ok: false, line: 1 });
  assert.deepEqual(pick(extractMetadataBlock("\n// /// script\n// [tool.knot]\nexport const a = 1;\n// ///\n")), { ok: false, line: 4 });
});

function pick(result: ReturnType<typeof extractMetadataBlock>): { ok: boolean; line?: number } {
  return result.ok ? { ok: true } : { ok: false, line: result.line };
}
