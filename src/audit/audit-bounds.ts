/**
 * Bounds on what one audit row may hold (issue 10 item 11). Threat: a caller makes every row of
 * theirs huge (a 900 KB MCP client name, a long tool name, big or deeply nested arguments), so
 * the audit table and the audit page balloon. Guarantee: text fields are clamped, argument values
 * are cut to a budget with a visible marker, and a row's canonical JSON stays under
 * MAX_AUDIT_ROW_BYTES. Everything is cut *before* the row is hashed, so the chain covers exactly
 * what is stored; the chain fields (seq, prevHash, hash) are never touched.
 */
import { canonicalJson } from "../store/audit-hash.ts";
import { MAX_JSON_DEPTH } from "../validation/json-depth.ts";

export const MAX_AUDIT_ROW_BYTES = 16 * 1024;
/** Client `name/version`, tool names, outcomes: short by nature, so long ones are abuse. */
export const MAX_AUDIT_TEXT = 200;
/** What a row needs besides its args (the chain fields, times, ids, a 500-char summary). */
const ROW_OVERHEAD_BYTES = 4 * 1024;
export const ARGS_BUDGET_BYTES = MAX_AUDIT_ROW_BYTES - ROW_OVERHEAD_BYTES;
export const TOO_DEEP = "[nested too deep]";

/** `value` cut to `max` characters, the last ones saying how much was cut. */
export function clampText(value: string, max = MAX_AUDIT_TEXT): string {
  if (value.length <= max) return value;
  const marker = (cut: number) => `…[${cut} more chars]`;
  let keep = max - marker(value.length).length;
  keep = Math.max(0, keep);
  return `${value.slice(0, keep).toWellFormed()}${marker(value.length - keep)}`;
}

export function clampNullable(value: string | null | undefined, max = MAX_AUDIT_TEXT): string | null {
  return value === null || value === undefined ? null : clampText(value, max);
}

/** Progressively tighter cuts, tried until the args fit their budget. */
const LEVELS = [
  { text: 2048, members: 200 },
  { text: 256, members: 32 },
  { text: 64, members: 8 },
] as const;

/**
 * A copy of `args` (any JSON-like value) that fits `budget` bytes of canonical JSON: strings
 * clamped, long arrays and objects cut with a marker member, nesting past MAX_JSON_DEPTH replaced
 * by TOO_DEEP. Iterative, so no input depth can overflow it. When nothing fits, a marker string.
 */
export function boundArgs(args: unknown, budget = ARGS_BUDGET_BYTES): unknown {
  let size = 0;
  for (const level of LEVELS) {
    const copy = cut(args, level.text, level.members);
    size = Buffer.byteLength(canonicalJson(copy));
    if (size <= budget) return copy;
  }
  return `[args too large: ${size} bytes after cutting]`;
}

type Slot = { readonly value: unknown; readonly depth: number; readonly put: (copy: unknown) => void };

/** More values than could ever fit a row's budget: past this, the rest are not even visited. */
const MAX_VALUES = 8192;

function cut(value: unknown, maxText: number, maxMembers: number): unknown {
  let root: unknown;
  let visited = 0;
  const stack: Slot[] = [{ value, depth: 1, put: (copy) => (root = copy) }];
  while (stack.length > 0) {
    const { value: current, depth, put } = stack.pop()!;
    visited += 1;
    // Children are queued only while there is room, so the copy's cost stays bounded by
    // MAX_VALUES, not by the input's size.
    const room = Math.max(0, MAX_VALUES - visited - stack.length);
    const plain = jsonish(current);
    if (typeof plain === "string") {
      put(clampText(plain, maxText));
    } else if (plain === null || typeof plain !== "object") {
      put(plain);
    } else if (depth > MAX_JSON_DEPTH) {
      put(TOO_DEEP);
    } else if (Array.isArray(plain)) {
      const copy: unknown[] = [];
      put(copy);
      const kept = Math.min(plain.length, maxMembers, room);
      for (let index = 0; index < kept; index += 1) {
        copy.push(null);
        stack.push({ value: plain[index], depth: depth + 1, put: (item) => (copy[index] = item) });
      }
      if (plain.length > kept) copy.push(`…[${plain.length - kept} more items]`);
    } else {
      const copy: Record<string, unknown> = {};
      put(copy);
      const keys = Object.keys(plain);
      const kept = Math.min(keys.length, maxMembers, room);
      for (const key of keys.slice(0, kept)) {
        stack.push({ value: (plain as Record<string, unknown>)[key], depth: depth + 1, put: (member) => defineMember(copy, clampText(key, maxText), member) });
      }
      if (keys.length > kept) copy["…"] = `[${keys.length - kept} more members]`;
    }
  }
  return root;
}

/**
 * An own data member even when the key is `__proto__`: a plain assignment would instead set the
 * copy's prototype (or do nothing), and that member would vanish from the audit row.
 */
function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** What JSON would keep of a value: toJSON applied once, bigint as text, functions dropped. */
function jsonish(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "function" || typeof value === "symbol") return undefined;
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    try {
      const json = (value as { toJSON: () => unknown }).toJSON();
      return json !== null && typeof json === "object" ? JSON.parse(JSON.stringify(json) ?? "null") : jsonish(json);
    } catch {
      return "[unserialisable]";
    }
  }
  return value;
}
