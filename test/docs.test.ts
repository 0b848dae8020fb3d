import assert from "node:assert/strict";
import fs from "node:fs";
import { it } from "node:test";
import { SANDBOX_ERROR_CODES } from "../sandbox/errors.ts";
import { ERROR_CODES } from "../src/errors.ts";

it("every error code is documented in docs/errors.md", () => {
  const doc = fs.readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");
  const missing = [...Object.keys(ERROR_CODES), ...Object.keys(SANDBOX_ERROR_CODES)].filter((code) => !doc.includes(`\`${code}\``));
  assert.deepEqual(missing, []);
});
