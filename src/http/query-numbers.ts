/** Whole-number query parameters (`limit`, `before`): a clear 400 naming the parameter, never a value SQL refuses. */
import { KnotError } from "../errors.ts";

/** The parameter as a whole number from 1 (at most `max`), or null when absent. */
export function positiveIntegerParam(search: URLSearchParams, key: string, max = Number.MAX_SAFE_INTEGER): number | null {
  const value = search.get(key);
  if (value === null) return null;
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 1 || n > max) {
    throw new KnotError("BAD_REQUEST", `${key} must be a whole number from 1 to ${max}, got "${value}"`, { where: key });
  }
  return n;
}
