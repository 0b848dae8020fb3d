/**
 * Per-run loopback tokens. A user tool's `knot:plugin.call` rides the real HTTP dispatch with a
 * token minted here for that one run: bound to the requesting principal (already narrowed by the
 * credential's scopes), short-lived, revoked when the run ends. Tokens live only in this process's
 * memory (hashed) and in the sandbox worker that holds the run; guest code never sees them.
 */
import type { Principal } from "../identity/principal.ts";
import { hashSecret, mintSecret } from "./secrets.ts";

export const LOOPBACK_TOKEN_PREFIX = "ktl_";

interface Entry {
  readonly principal: Principal;
  readonly expiresAt: number;
  readonly runId: string;
}

export interface LoopbackTokens {
  mint(principal: Principal, runId: string, ttlMs: number): { token: string; revoke(): void };
  lookup(token: string): { principal: Principal; runId: string } | null;
  readonly size: number;
}

export function createLoopbackTokens(now: () => number = Date.now): LoopbackTokens {
  const entries = new Map<string, Entry>();
  const sweep = () => {
    const t = now();
    for (const [hash, entry] of entries) if (entry.expiresAt <= t) entries.delete(hash);
  };
  return {
    mint(principal, runId, ttlMs) {
      sweep();
      const token = mintSecret(LOOPBACK_TOKEN_PREFIX);
      const hash = hashSecret(token);
      entries.set(hash, { principal: { ...principal, via: "loopback" }, expiresAt: now() + ttlMs, runId });
      return { token, revoke: () => void entries.delete(hash) };
    },
    lookup(token) {
      if (!token.startsWith(LOOPBACK_TOKEN_PREFIX)) return null;
      const entry = entries.get(hashSecret(token));
      if (!entry || entry.expiresAt <= now()) return null;
      return { principal: entry.principal, runId: entry.runId };
    },
    get size() {
      return entries.size;
    },
  };
}
