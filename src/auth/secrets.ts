/**
 * Credential secrets: minting, hashing for storage, and comparing without a timing leak.
 *
 * Why a plain SHA-256 and not a slow password hash (scrypt, argon2): a minted secret carries 256
 * random bits, so no amount of guessing per second brings a brute force within reach; slow hashes
 * exist to protect low-entropy human passwords. A fast, unsalted, deterministic hash also lets the
 * store find a token by the hash of what was presented (one indexed lookup) instead of trying every
 * token, and keeps authentication cheap on every request. Never use it for passwords.
 */
import { hash, randomFillSync, timingSafeEqual } from "node:crypto";

export const SECRET_BYTES = 32;

/**
 * Random bytes drawn from a buffer the CSPRNG fills 128 secrets at a time: one `randomBytes` per
 * secret measured ~13 µs on the run path (a per-run loopback token), a slice of the pool ~2. Each
 * byte is handed out once; the same source as `randomBytes` (as Node's own randomUUID pools it).
 */
const POOL_BYTES = SECRET_BYTES * 128;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;

function secretBytes(): Buffer {
  if (poolOffset + SECRET_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + SECRET_BYTES);
  poolOffset += SECRET_BYTES;
  return bytes;
}

/**
 * A new random secret, e.g. `kt_3q2…` (the prefix makes leaked tokens recognisable to scanners).
 * @example const secret = mintSecret(); // show once, store only hashSecret(secret)
 */
export function mintSecret(prefix = "kt_"): string {
  return prefix + secretBytes().toString("base64url");
}

/** The hex SHA-256 of a secret: what the store keeps and looks tokens up by. */
export function hashSecret(secret: string): string {
  return hash("sha256", secret, "hex"); // one-shot: a third of createHash's cost, on every request
}

/**
 * Compares two secrets in time that does not depend on where they differ. Strings of different
 * byte lengths are unequal at once: the length of a minted secret is public anyway.
 */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}
