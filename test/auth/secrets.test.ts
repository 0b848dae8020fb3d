/**
 * Minted secrets (src/auth/secrets.ts) come from a pool the CSPRNG refills: across several refills
 * every secret is new, of full length, and no two share their random part.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { hashSecret, mintSecret, SECRET_BYTES } from "../../src/auth/secrets.ts";

test("secrets minted across several pool refills are all distinct, full-length and unpredictable from each other", () => {
  const minted = Array.from({ length: 1_000 }, () => mintSecret("ktl_")); // ~8 refills of the pool
  assert.equal(new Set(minted).size, minted.length, "no secret twice");
  for (const secret of minted) {
    assert.match(secret, /^ktl_[A-Za-z0-9_-]+$/);
    assert.equal(Buffer.from(secret.slice(4), "base64url").length, SECRET_BYTES);
  }
  // A secret handed out is a copy: later mints (refilling the pool) do not change it.
  const first = minted[0]!;
  const hashed = hashSecret(first);
  for (let i = 0; i < 500; i++) mintSecret();
  assert.equal(hashSecret(first), hashed);
  // No 8-byte run repeats across the random parts (a pool slice handed out twice would).
  const runs = new Set<string>();
  for (const secret of minted) {
    const bytes = Buffer.from(secret.slice(4), "base64url");
    for (let at = 0; at + 8 <= bytes.length; at += 8) {
      const run = bytes.subarray(at, at + 8).toString("hex");
      assert.ok(!runs.has(run), "a random run was handed out twice");
      runs.add(run);
    }
  }
});
