import assert from "node:assert/strict";
import fs from "node:fs";
import { it } from "node:test";
import { SANDBOX_ERROR_CODES } from "../sandbox/errors.ts";
import { DIAGNOSTIC_CODES } from "../client-modules/index.ts";
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

it("every code the server sends is declared (and so documented), with one HTTP status wherever it is sent", () => {
  const declared = new Set([...Object.keys(ERROR_CODES), ...Object.keys(SANDBOX_ERROR_CODES), ...Object.keys(DIAGNOSTIC_CODES)]);
  const files = fs.readdirSync(new URL("../src/", import.meta.url), { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
  const sent = new Map<string, string[]>();
  const statuses: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(new URL(`../src/${file}`, import.meta.url), "utf8");
    // new KnotError("CODE", …), rpcError(res, 403, "CODE", …), { code: "CODE" } in a reply or a JSON-RPC error's data
    for (const match of text.matchAll(/new KnotError\("([A-Z_]+)"|rpcError\(res, (\d{3}), "([A-Z_]+)"|\bcode: "([A-Z][A-Z_]+)"/g)) {
      const code = match[1] ?? match[3] ?? match[4]!;
      sent.set(code, [...(sent.get(code) ?? []), file]);
      const status = match[2];
      const wanted = (ERROR_CODES as Record<string, { status: number } | undefined>)[code]?.status;
      if (status !== undefined && wanted !== undefined && Number(status) !== wanted) statuses.push(`${file}: ${code} sent with ${status}, declared ${wanted}`);
    }
  }
  // Node's own errno codes (ECONNRESET) stand for themselves.
  const undeclared = [...sent].filter(([code]) => !declared.has(code) && !/^E[A-Z]+$/.test(code)).map(([code, where]) => `${code} (${[...new Set(where)].join(", ")})`);
  assert.deepEqual(undeclared, []);
  assert.deepEqual(statuses, []);
});
