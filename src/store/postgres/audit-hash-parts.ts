/**
 * The audit hash recipe (../audit-hash.ts) split around `seq`, so PostgreSQL can finish a row's
 * hash once it knows the seq (under the chain lock, in one round trip; see migrations.ts).
 *
 * canonicalJson sorts keys, so the hashed object always reads: the members before "seq", then
 * "seq", then the members after it. `before + String(seq) + after` is exactly the canonical JSON
 * auditRowHash hashes; the tests check the result with verifyAuditChain and auditRowHash.
 */
import { canonicalJson } from "../audit-hash.ts";
import type { AuditEntryInput } from "../store.ts";

const BEFORE_SEQ = ["args", "at", "client", "clientRequestId", "durationMs", "outcome", "requestId"] as const;
const AFTER_SEQ = ["summary", "surface", "tokenId", "tool", "userId"] as const;

// The split must follow canonicalJson's key order; fail at load rather than write bad hashes.
const order = [...BEFORE_SEQ, "seq", ...AFTER_SEQ];
if (order.join() !== [...order].sort().join()) throw new Error("audit hash parts are not in canonical key order");

function members(entry: AuditEntryInput, keys: readonly (keyof AuditEntryInput)[]): string {
  // clientRequestId is hashed only when present (see auditRowHash): null is left out, not "null".
  return canonicalJson(Object.fromEntries(keys.map((key) => [key, key === "clientRequestId" ? (entry[key] ?? undefined) : entry[key]])));
}

export function hashedAroundSeq(entry: AuditEntryInput): { before: string; after: string } {
  const head = members(entry, BEFORE_SEQ); // "{…}": members omitted when undefined, as in the whole
  const tail = members(entry, AFTER_SEQ);
  return {
    before: `${head === "{}" ? "{" : `${head.slice(0, -1)},`}"seq":`,
    after: tail === "{}" ? "}" : `,${tail.slice(1)}`,
  };
}
