/**
 * src/mcp/sdk.ts's Server: the transport-close error (made on every 2026-07-28 request) is made
 * without a stack only when nothing waits for it; a call cut off by its client still gets an error
 * with its stack, and the stack limit is always put back.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Server, type JSONRPCMessage, type Transport } from "../../src/mcp/sdk.ts";

function connected() {
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  let release: (() => void) | undefined;
  let reason: unknown;
  server.setRequestHandler("tools/call", async (request, ctx) => {
    if (request.params.name === "wait") {
      await new Promise<void>((resolve) => {
        release = resolve;
        ctx.mcpReq.signal.addEventListener("abort", () => {
          reason = ctx.mcpReq.signal.reason;
          resolve();
        });
      });
    }
    return { content: [] };
  });
  const sent: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: async () => {},
    send: async (message) => void sent.push(message),
    close: async () => transport.onclose?.(),
  };
  // The stack limit the close hook runs with, as our onclose sees it.
  let limitAtClose: number | undefined;
  server.onclose = () => {
    limitAtClose = Error.stackTraceLimit;
  };
  const deliver = (message: JSONRPCMessage) => transport.onmessage?.(message);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  return { server, transport, sent, deliver, settle, reason: () => reason, limitAtClose: () => limitAtClose, released: () => release !== undefined };
}

const INITIALIZE: JSONRPCMessage = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } };

test("a call cut off by its client gets the close error with its stack", async () => {
  const { server, transport, deliver, settle, reason, limitAtClose, released } = connected();
  const limit = Error.stackTraceLimit;
  await server.connect(transport);
  deliver(INITIALIZE);
  await settle();
  deliver({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wait", arguments: {} } });
  await settle();
  assert.ok(released(), "the handler is running");
  await transport.close();
  await settle();
  assert.equal(limitAtClose(), limit, "the close hook ran with the stack limit as it was");
  assert.match(String((reason() as Error).stack), /\n\s+at /, "the abort reason has its stack");
  assert.equal(Error.stackTraceLimit, limit);
});

test("a close after every call has been answered makes its error without a stack, and puts the limit back", async () => {
  const { server, transport, sent, deliver, settle, limitAtClose } = connected();
  const limit = Error.stackTraceLimit;
  await server.connect(transport);
  deliver(INITIALIZE);
  deliver({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "now", arguments: {} } });
  await settle();
  assert.ok(sent.some((message) => "id" in message && message.id === 2 && "result" in message), "the call was answered");
  await transport.close();
  assert.equal(limitAtClose(), 0, "nothing waited: no stack captured");
  assert.equal(Error.stackTraceLimit, limit, "the limit is put back");
});
