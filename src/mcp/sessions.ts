/**
 * Open Streamable HTTP sessions, each bound to the user who opened it. Threat: a session id that
 * leaks (logs, a shared proxy) being used with someone else's token. Guarantee: the HTTP handler
 * refuses any request on a session whose user differs from the request's (checked per request).
 * Idle sessions are closed, and each user holds a bounded number, so memory stays bounded.
 */
import type { Server, StreamableHTTPServerTransport } from "./sdk.ts";

export interface McpSession {
  readonly id: string;
  readonly userId: string;
  /** The credential that opened it: revoking that credential closes the session. */
  readonly tokenId?: string | null;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

export interface SessionRegistry {
  add(session: McpSession): void;
  get(id: string): McpSession | null;
  remove(id: string): void;
  /** Closes the sessions opened with this credential (it was revoked). */
  closeOfToken(tokenId: string): void;
  /** Sessions of these users (all sessions when omitted). */
  of(userIds?: readonly string[]): McpSession[];
  readonly size: number;
  closeAll(): Promise<void>;
}

export interface SessionLimits {
  readonly idleMs: number;
  readonly maxPerUser: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = Object.freeze({ idleMs: 30 * 60_000, maxPerUser: 32 });

export function createSessionRegistry(limits: SessionLimits = DEFAULT_SESSION_LIMITS, now: () => number = Date.now): SessionRegistry {
  const sessions = new Map<string, McpSession>();
  const close = (session: McpSession) => {
    sessions.delete(session.id);
    void session.transport.close().catch(() => {});
    void session.server.close().catch(() => {});
  };
  const sweep = setInterval(() => {
    const cutoff = now() - limits.idleMs;
    for (const session of sessions.values()) if (session.lastSeen < cutoff) close(session);
  }, Math.min(limits.idleMs, 60_000));
  sweep.unref();

  return {
    add(session) {
      const mine = [...sessions.values()].filter((s) => s.userId === session.userId);
      // Map order is insertion order: the first ones are the oldest.
      for (const old of mine.slice(0, Math.max(0, mine.length - limits.maxPerUser + 1))) close(old);
      sessions.set(session.id, session);
    },
    get(id) {
      const session = sessions.get(id) ?? null;
      if (session) session.lastSeen = now();
      return session;
    },
    remove(id) {
      sessions.delete(id);
    },
    closeOfToken(tokenId) {
      for (const session of sessions.values()) if (session.tokenId === tokenId) close(session);
    },
    of(userIds) {
      const wanted = userIds ? new Set(userIds) : null;
      return [...sessions.values()].filter((s) => !wanted || wanted.has(s.userId));
    },
    get size() {
      return sessions.size;
    },
    async closeAll() {
      clearInterval(sweep);
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.flatMap((s) => [s.transport.close(), s.server.close()]));
    },
  };
}
