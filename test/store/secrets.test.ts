import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { hashSecret, mintSecret, safeEqual } from "../../src/auth/secrets.ts";

test("mintSecret: prefix plus 32 random bytes in base64url", () => {
  const secret = mintSecret();
  assert.match(secret, /^kt_[A-Za-z0-9_-]{43}$/);
  assert.equal(Buffer.from(secret.slice(3), "base64url").length, 32);
  assert.notEqual(mintSecret(), secret);
  assert.match(mintSecret("ktl_"), /^ktl_[A-Za-z0-9_-]{43}$/);
  assert.equal(new Set(Array.from({ length: 200 }, () => mintSecret())).size, 200);
});

test("hashSecret: hex sha256, deterministic, different for different secrets", () => {
  assert.equal(hashSecret("kt_abc"), createHash("sha256").update("kt_abc").digest("hex"));
  assert.match(hashSecret("x"), /^[0-9a-f]{64}$/);
  assert.equal(hashSecret("kt_abc"), hashSecret("kt_abc"));
  assert.notEqual(hashSecret("kt_abc"), hashSecret("kt_abd"));
});

test("safeEqual: equal only for identical strings, any lengths", () => {
  const secret = mintSecret();
  assert.equal(safeEqual(secret, `${secret}`), true);
  assert.equal(safeEqual("kt_abcd", "kt_abce"), false);
  assert.equal(safeEqual("kt_abcd", "Kt_abcd"), false);
  assert.equal(safeEqual(secret, secret.slice(0, -1)), false);
  assert.equal(safeEqual("", ""), true);
  assert.equal(safeEqual("é", "e\u0301"), false);
});
