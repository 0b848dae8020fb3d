/**
 * readBody (src/http/body.ts) on a real server: a body is read whole, also from a request someone
 * paused first; a second read of one request answers empty (nothing is left), never hangs; a body
 * over the limit is refused; a client that goes away mid-body fails the read instead of leaving it
 * waiting.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { readBody } from "../../src/http/body.ts";

type Reader = (req: http.IncomingMessage) => Promise<unknown>;

/** One request through a server whose handler is `read`; resolves with what `read` answered (or threw). */
async function through(read: Reader, send: (req: http.ClientRequest) => void): Promise<unknown> {
  let answer!: (value: unknown) => void;
  const answered = new Promise<unknown>((resolve) => (answer = resolve));
  const server = http.createServer((req, res) => {
    read(req).then((value) => answer(value), (error: unknown) => answer(error)).finally(() => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/" });
  req.on("error", () => {});
  req.on("response", (res) => res.resume());
  send(req);
  // A read that never settles fails the test here instead of holding the whole run open.
  const timer = setTimeout(() => answer(new Error("the read did not settle within 5 s")), 5_000);
  try {
    return await answered;
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const text = (value: unknown) => (value instanceof Buffer ? value.toString("utf8") : value);

test("a body is read whole, in several chunks", async () => {
  const got = await through((req) => readBody(req, 1024), (req) => {
    req.write("hello ");
    setTimeout(() => req.end("world"), 20);
  });
  assert.equal(text(got), "hello world");
});

test("a request paused before the read is still read whole", async () => {
  const got = await through((req) => {
    req.pause();
    return new Promise((resolve) => setTimeout(resolve, 20)).then(() => readBody(req, 1024));
  }, (req) => req.end("paused body"));
  assert.equal(text(got), "paused body", String(got));
});

test("a second read of one request answers empty, without waiting", async () => {
  const got = await through(async (req) => [text(await readBody(req, 1024)), text(await readBody(req, 1024))], (req) => req.end("once"));
  assert.deepEqual(got, ["once", ""], String(got));
});

test("a body over the limit is refused with PAYLOAD_TOO_LARGE", async () => {
  const got = await through((req) => readBody(req, 8), (req) => req.end("x".repeat(64)));
  assert.equal((got as { code?: string }).code, "PAYLOAD_TOO_LARGE");
});

test("a client that goes away mid-body fails the read", async () => {
  const got = await through((req) => readBody(req, 1024), (req) => {
    req.write("half a bo");
    setTimeout(() => req.destroy(), 20);
  });
  assert.ok(got instanceof Error, `the read answered ${String(got)}`);
});
