import assert from "node:assert/strict";
import fs from "node:fs";
import { it } from "node:test";
import { SANDBOX_ERROR_CODES } from "../sandbox/errors.ts";
import { ERROR_CODES } from "../src/errors.ts";

const doc = fs.readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");
const [hostPart = "", sandboxPart = ""] = doc.split(/^## Sandbox errors/m);

/** The `| \`CODE\` | cell | cell |` rows of a markdown table, as arrays of cells. */
function rows(markdown: string): string[][] {
  return [...markdown.matchAll(/^\| `([A-Z_]+)` \|(.*)\|$/gm)].map((m) => [m[1]!, ...m[2]!.split(" | ").map((cell) => cell.trim())]);
}

it("every error code is documented in docs/errors.md", () => {
  const missing = [...Object.keys(ERROR_CODES), ...Object.keys(SANDBOX_ERROR_CODES)].filter((code) => !doc.includes(`\`${code}\``));
  assert.deepEqual(missing, []);
});

it("the host error table matches src/errors.ts row by row: code, HTTP status, meaning", () => {
  const documented = rows(hostPart).sort((a, b) => a[0]!.localeCompare(b[0]!));
  const declared = Object.entries(ERROR_CODES).map(([code, { status, meaning }]) => [code, String(status), meaning]).sort((a, b) => a[0]!.localeCompare(b[0]!));
  assert.deepEqual(documented, declared);
});

it("the sandbox error table matches sandbox/errors.ts row by row: code, meaning", () => {
  const documented = rows(sandboxPart).sort((a, b) => a[0]!.localeCompare(b[0]!));
  const declared = Object.entries(SANDBOX_ERROR_CODES).map(([code, meaning]) => [code, meaning]).sort((a, b) => a[0]!.localeCompare(b[0]!));
  assert.deepEqual(documented, declared);
});
