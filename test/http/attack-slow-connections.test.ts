/**
 * Issue 10 "also noticed": slow connections were held ~66 s and one client could open as many as
 * it liked. Each limit is attacked with raw sockets against the real server (short limits set in
 * the config so the test is quick), and the defaults are checked on a server started with them.
 */
import assert from "node:assert/strict";
import net from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { DEFAULT_CONFIG } from "../../src/config.ts";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeProbePlugin } from "../helpers/probe-plugin.ts";

interface RawSocket {
  readonly socket: net.Socket;
  /** Everything the server sent, once it closed the connection; with the time it took. */
  readonly closed: Promise<{ text: string; afterMs: number }>;
}

function open(url: string): Promise<RawSocket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const started = performance.now();
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    const closed = new Promise<{ text: string; afterMs: number }>((done) => socket.on("close", () => done({ text, afterMs: performance.now() - started })));
    socket.once("connect", () => resolve({ socket, closed }));
    socket.once("error", reject);
  });
}

/** Writes a line every `everyMs` until the socket closes (a slowloris client). */
function dribble(socket: net.Socket, line: () => string, everyMs: number): void {
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) clearInterval(timer);
    else socket.write(line());
  }, everyMs);
  socket.once("close", () => clearInterval(timer));
}

describe("slow connections and connection floods are bounded", () => {
  let t: TestApp;
  const http = { headersTimeoutMs: 1000, requestTimeoutMs: 1500, keepAliveTimeoutMs: 500, maxConnections: 64, maxConnectionsPerClient: 6 };

  before(async () => {
    const root = tempDir();
    writeProbePlugin(root);
    t = await startApp({ pluginsDir: root, config: { http, plugins: { probe: { marker: path.join(tempDir(), "m") } } } });
  });
  after(() => t.close());

  it("headers dribbled one line at a time are cut off at headersTimeout with 408", async () => {
    const { socket, closed } = await open(t.url);
    socket.write("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n");
    dribble(socket, () => "x-slow: 1\r\n", 100);
    const { text, afterMs } = await closed;
    assert.match(text, /^HTTP\/1\.1 408/);
    assert.ok(afterMs < http.headersTimeoutMs + 1500, `closed after ${afterMs.toFixed(0)} ms`);
    assert.ok(afterMs >= http.headersTimeoutMs - 50, `not before the limit (${afterMs.toFixed(0)} ms)`);
  });

  it("a body dribbled past requestTimeout is cut off with 408, and no handler ran", async () => {
    const { socket, closed } = await open(t.url);
    socket.write("POST /api/session HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000\r\nx-knot-csrf: 1\r\n\r\n{");
    dribble(socket, () => " ", 100);
    const { text, afterMs } = await closed;
    assert.match(text, /^HTTP\/1\.1 408/);
    assert.ok(afterMs < http.requestTimeoutMs + 1500, `closed after ${afterMs.toFixed(0)} ms`);
  });

  it("an idle keep-alive connection is closed after keepAliveTimeout", async () => {
    const { socket, closed } = await open(t.url);
    socket.write("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
    const { text, afterMs } = await closed;
    assert.match(text, /^HTTP\/1\.1 200/);
    assert.match(text, /keep-alive: timeout=\d+/i);
    assert.ok(afterMs < http.keepAliveTimeoutMs + 1500, `idle connection held ${afterMs.toFixed(0)} ms`);
  });

  it("a handler slower than requestTimeout is still answered: the limit covers receiving the request only", async () => {
    const res = await request(`${t.url}/plugins/probe/slow?ms=${http.requestTimeoutMs + 700}`, (await t.userWithToken("slowpoke")).token);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  it("one client gets at most maxConnectionsPerClient connections; the next is refused with 503 and others go on", async () => {
    const held = await Promise.all(Array.from({ length: http.maxConnectionsPerClient }, () => open(t.url)));
    for (const { socket } of held) socket.write("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const extra = await open(t.url);
    const refused = await extra.closed;
    assert.match(refused.text, /^HTTP\/1\.1 503/);
    assert.match(refused.text, /too many connections/);
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await request(`${t.url}/healthz`, null)).status, 200, "a slot is free again once they close");
  });
});

describe("the defaults are deliberate", () => {
  it("headers 10 s, request 30 s, keep-alive 65 s, 1024 connections, 256 per client", async () => {
    assert.deepEqual(DEFAULT_CONFIG.http, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000, maxConnections: 1024, maxConnectionsPerClient: 256 });
    const t = await startApp();
    try {
      const server = t.app.server;
      assert.equal(server.headersTimeout, 10_000);
      assert.equal(server.requestTimeout, 30_000);
      assert.equal(server.keepAliveTimeout, 65_000);
      assert.equal(server.maxConnections, 1024);
    } finally {
      await t.close();
    }
  });

  it("the config file sets them under [server], checked like every key", async () => {
    const { configFromToml } = await import("../../src/config.ts");
    const config = configFromToml({ server: { headers_timeout_ms: 5000, request_timeout_ms: 20_000, keep_alive_timeout_ms: 2000, max_connections: 100, max_connections_per_client: 10 } }, tempDir());
    assert.deepEqual(config.http, { headersTimeoutMs: 5000, requestTimeoutMs: 20_000, keepAliveTimeoutMs: 2000, maxConnections: 100, maxConnectionsPerClient: 10 });
    assert.throws(() => configFromToml({ server: { headers_timeout_ms: "10s" } }, tempDir()), (e: any) => e.code === "CONFIG_INVALID");
    assert.throws(() => configFromToml({ server: { headers_timeout_ms: 0 } }, tempDir()), (e: any) => e.code === "CONFIG_INVALID" && /headers_timeout_ms/.test(e.message));
    assert.throws(() => configFromToml({ server: { headers_timeout_ms: 40_000 } }, tempDir()), (e: any) => e.code === "CONFIG_INVALID" && /must not exceed/.test(e.message));
  });
});
