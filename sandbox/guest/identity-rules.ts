/**
 * The one rule behind `knot:identity`'s `hasPermission` and `inGroup`, used by user tools
 * (sandbox/guest/identity.ts) and plugin code (src/identity/identity.ts), so the same check
 * answers the same on both sides. Decided (issue 15): a list means **all of** its entries.
 *
 *   hasPermission("a")         → isAdmin || permissions includes "a"
 *   hasPermission(["a", "b"])  → isAdmin || permissions include "a" and "b"
 *   hasPermission([])          → false (asking for nothing proves nothing; fail closed)
 *   anything else (a number, a list holding a non-string, a list over 64 entries) → false
 *
 * The answer comes from the caller's inert data (`user().isAdmin`, `user().permissions`), which is
 * already narrowed by the credential's scopes: an admin signed in with a scoped token (an
 * assistant's) is not `isAdmin`, and holds only the permissions it was granted and lent.
 * Guest-safe: only captured intrinsics, no Node API.
 */
import * as I from "./intrinsics.ts";

const MAX_ASKED = 64;

/** Whether `held` (with `admin` passing everything) satisfies `asked`: a string, or a non-empty list meaning all of it. */
export function holdsAll(admin: boolean, held: readonly string[], asked: unknown): boolean {
  if (typeof asked === "string") return admin || I.ArrayIncludes(held, asked);
  if (!I.ArrayIsArray(asked)) return false;
  const list = asked as readonly unknown[];
  if (list.length === 0 || list.length > MAX_ASKED) return false;
  for (let index = 0; index < list.length; index += 1) {
    const item = list[index];
    if (typeof item !== "string") return false;
    if (!admin && !I.ArrayIncludes(held, item)) return false;
  }
  return true;
}
