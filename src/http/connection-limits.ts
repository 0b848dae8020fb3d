/**
 * Why: a client that sends its request slowly (slowloris), or opens connections and never uses
 * them, holds a socket and a file descriptor for as long as the server lets it. Node's defaults
 * (and the old 66 s headers timeout here) let one client pin hundreds of sockets for a minute.
 *
 * Guarantee: a connection must deliver its headers within `headersTimeoutMs` and its whole request
 * within `requestTimeoutMs` (else 408 and close); an idle keep-alive connection is closed after
 * `keepAliveTimeoutMs`; the server holds at most `maxConnections` sockets, and one remote address
 * at most `maxConnectionsPerClient` (the next gets 503 and is closed before anything is parsed).
 * These bound *receiving a request* only: a handler or a streamed run may answer for as long as
 * its own deadline allows.
 *
 * Note: on the default 127.0.0.1 binding every client (browser, CLI, the sandbox's loopback calls,
 * up to 32 per worker) shares one address, so the per-client cap is sized well above the loopback's
 * needs; behind a reverse proxy it is a cap on the proxy.
 */
import type http from "node:http";
import type { Socket } from "node:net";

export interface HttpLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerClient: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Idle keep-alive sockets stay longer than clients keep them (undici honours the Keep-Alive hint
  // minus 1 s; load balancers idle at 60 s), so a client never reuses a socket the server is closing
  // at that moment: a shorter value broke clients whose event loop was busy when the timer was due
  // ("other side closed"). It is not the defence against floods: the connection caps are, since a
  // client can keep any connection alive by using it.
  keepAliveTimeoutMs: 65_000,
  maxConnections: 1024,
  maxConnectionsPerClient: 256,
});

/** How often Node checks the two request timeouts: often enough that they hold to about a second. */
export function connectionsCheckingIntervalMs(limits: HttpLimits): number {
  return Math.max(100, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)));
}

export function applyConnectionLimits(server: http.Server, limits: HttpLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  const perClient = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const client = clientKey(socket.remoteAddress);
    const count = (perClient.get(client) ?? 0) + 1;
    if (count > limits.maxConnectionsPerClient) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\nretry-after: 1\r\ncontent-type: text/plain\r\ncontent-length: 21\r\n\r\ntoo many connections\n");
      socket.destroySoon();
      return;
    }
    perClient.set(client, count);
    socket.once("close", () => {
      const left = (perClient.get(client) ?? 1) - 1;
      if (left <= 0) perClient.delete(client);
      else perClient.set(client, left);
    });
  });
}

/** One key per client address (an IPv4 client seen through an IPv6 socket counts as itself). */
function clientKey(address: string | undefined): string {
  if (!address) return "unknown";
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}
