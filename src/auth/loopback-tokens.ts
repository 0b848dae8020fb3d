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

export interface MintedLoopbackToken {
  readonly token: string;
  /** The run was dispatched to a worker: its lifetime counts from now (a queued run's does not run out). */
  restartClock(): void;
  /**
   * The principal as it is now (grants revoked while the run waited in the queue are gone); null
   * revokes the token. Requests that arrive meanwhile wait for it (`principalOf`).
   */
  refresh(next: Promise<Principal | null>): void;
  revoke(): void;
}

export interface LoopbackTokens {
  mint(principal: Principal, runId: string, ttlMs: number): MintedLoopbackToken;
  /** The live token's run and principal as last known (a refresh may be under way: see `principalOf`). */
  lookup(token: string): { principal: Principal; runId: string } | null;
  /** The live token's principal, after any refresh under way. */
  principalOf(token: string): Promise<Principal | null>;
  readonly size: number;
}

export function createLoopbackTokens(now: () => number = Date.now): LoopbackTokens {
  const entries = new Map<string, Entry>();
  const refreshing = new Map<string, Promise<void>>();
  /** The entry of a token's hash while it is live (not revoked, not expired). */
  const live = (hash: string): Entry | null => {
    const entry = entries.get(hash);
    return entry && entry.expiresAt > now() ? entry : null;
  };
  const sweep = () => {
    const t = now();
    for (const [hash, entry] of entries) if (entry.expiresAt <= t) entries.delete(hash);
  };
  return {
    mint(principal, runId, ttlMs) {
      sweep();
      const token = mintSecret(LOOPBACK_TOKEN_PREFIX);
      const hash = hashSecret(token);
      let loopbackPrincipal: Principal = { ...principal, via: "loopback" };
      let expiresAt = 0;
      let revoked = false;
      const start = () => void entries.set(hash, { principal: loopbackPrincipal, expiresAt: (expiresAt = now() + ttlMs), runId });
      const revoke = () => {
        revoked = true;
        entries.delete(hash);
      };
      start();
      return {
        token,
        restartClock: () => {
          if (!revoked) start();
        },
        refresh(next) {
          const settled = next.then((fresh) => {
            if (revoked) return;
            if (!fresh) return revoke();
            loopbackPrincipal = { ...fresh, via: "loopback" };
            entries.set(hash, { principal: loopbackPrincipal, expiresAt, runId });
          }, revoke).finally(() => {
            if (refreshing.get(hash) === settled) refreshing.delete(hash);
          });
          refreshing.set(hash, settled);
        },
        revoke,
      };
    },
    lookup(token) {
      const entry = token.startsWith(LOOPBACK_TOKEN_PREFIX) ? live(hashSecret(token)) : null;
      return entry && { principal: entry.principal, runId: entry.runId };
    },
    async principalOf(token) {
      if (!token.startsWith(LOOPBACK_TOKEN_PREFIX)) return null;
      const hash = hashSecret(token);
      if (live(hash) === null) return null;
      await refreshing.get(hash);
      return live(hash)?.principal ?? null;
    },
    get size() {
      return entries.size;
    },
  };
}
