/**
 * src/mcp/node-adapter.ts on a real node:http server, with a stand-in for the SDK's handler: how it
 * tells a streamed answer from a JSON one (media types are case-insensitive), and what happens to a
 * stream nobody will read or whose client goes away.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { toParsedBodyNodeHandler } from "../../src/mcp/node-adapter.ts";
import type { SdkHttpHandler } from "../../src/mcp/sdk.ts";

async function serve(fetch: SdkHttpHandler["fetch"]): Promise<{ url: string; errors: Error[]; close(): Promise<void> }> {
  const errors: Error[] = [];
  const handle = toParsedBodyNodeHandler({ fetch } as SdkHttpHandler, (error) => errors.push(error));
  const server = http.createServer((req, res) => {
    handle(req, res, { jsonrpc: "2.0", id: 1, method: "tools/call" }).catch((error: Error) => {
      errors.push(error);
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    errors,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

test("an event stream whose content type is spelled in capitals is streamed, not buffered to its end", async () => {
  let readFirst!: () => void;
  const firstRead = new Promise<void>((resolve) => (readFirst = resolve));
  const encoder = new TextEncoder();
  const server = await serve(async () => new Response(new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode("event: message\ndata: one\n\n"));
      // The second event comes only once the client has the first: a buffering adapter never ends.
      await firstRead;
      controller.enqueue(encoder.encode("event: message\ndata: two\n\n"));
      controller.close();
    },
  }), { headers: { "Content-Type": "Text/Event-Stream; charset=utf-8" } }));
  try {
    let timer: NodeJS.Timeout | undefined;
    const tooLate = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the first event never arrived before the stream's end")), 5_000);
    });
    const received = new Promise<string>((resolve, reject) => {
      http.get(server.url, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
          if (body.includes("data: one")) readFirst();
        });
        res.on("end", () => resolve(body));
        res.on("error", reject);
      }).on("error", reject);
    });
    const text = await Promise.race([received, tooLate]).finally(() => clearTimeout(timer));
    assert.match(text, /data: one[\s\S]*data: two/);
  } finally {
    await server.close();
  }
});

test("a stream whose headers cannot be written is cancelled, so what feeds it stops", async () => {
  let cancelled = false;
  const server = await serve(async () => {
    const response = new Response(new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: () => {
        cancelled = true;
      },
    }), { headers: { "content-type": "text/event-stream" } });
    // A status node:http refuses (the fetch Response itself would allow it only as a redirect-less 2xx-5xx).
    Object.defineProperty(response, "status", { value: 99 });
    return response;
  });
  try {
    await new Promise<void>((resolve) => {
      http.get(server.url, (res) => res.resume().on("end", resolve).on("error", () => resolve())).on("error", () => resolve());
    });
    assert.equal(cancelled, true, "the stream was cancelled");
    assert.equal(server.errors.length, 1, "the failure reached the route's error handling");
  } finally {
    await server.close();
  }
});

test("a stream its client drops is cancelled at once, also while it waits for its next event", async () => {
  let cancelled!: () => void;
  const wasCancelled = new Promise<void>((resolve) => (cancelled = resolve));
  const encoder = new TextEncoder();
  const server = await serve(async () => new Response(new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(encoder.encode("event: message\ndata: one\n\n")),
    pull: () => new Promise(() => {}), // no second event, ever: a notification stream at rest
    cancel: () => cancelled(),
  }), { headers: { "content-type": "text/event-stream" } }));
  try {
    const ac = new AbortController();
    const res = await fetch(server.url, { method: "POST", signal: ac.signal });
    const reader = res.body!.getReader();
    await reader.read(); // the first event: the stream is open and at rest
    ac.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([wasCancelled, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("the stream was not cancelled when its client went away")), 5_000)))]);
    clearTimeout(timer);
  } finally {
    await server.close();
  }
});

test("a stream with no event ready gets its headers at once: its client does not wait for the first event", async () => {
  const server = await serve(async () => new Response(new ReadableStream<Uint8Array>({
    pull: () => new Promise(() => {}), // quiet: a slow tool, a notification stream between keep-alives
  }), { headers: { "content-type": "text/event-stream" } }));
  try {
    const res = await fetch(server.url, { method: "POST", signal: AbortSignal.timeout(5_000) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    await res.body?.cancel();
  } finally {
    await server.close();
  }
});
