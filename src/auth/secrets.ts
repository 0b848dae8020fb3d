/**
 * Credential secrets: minting, hashing for storage, and comparing without a timing leak.
 *
 * Why a plain SHA-256 and not a slow password hash (scrypt, argon2): a minted secret carries 256
 * random bits, so no amount of guessing per second brings a brute force within reach; slow hashes
 * exist to protect low-entropy human passwords. A fast, unsalted, deterministic hash also lets the
 * store find a token by the hash of what was presented (one indexed lookup) instead of trying every
 * token, and keeps authentication cheap on every request. Never use it for passwords.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";

export const SECRET_BYTES = 32;

/**
 * A new random secret, e.g. `kt_3q2…` (the prefix makes leaked tokens recognisable to scanners).
 * @example const secret = mintSecret(); // show once, store only hashSecret(secret)
 */
export function mintSecret(prefix = "kt_"): string {
  return prefix + randomBytes(SECRET_BYTES).toString("base64url");
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
