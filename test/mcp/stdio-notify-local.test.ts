/**
 * A stdio connection served by the same process as the HTTP server (`connectStdio`, as
 * `knot-tools mcp` serves one): a tool saved over HTTP is told to it once — not once by the
 * surface and again by the list watch that follows other processes' changes — and a change it
 * cannot see is not told at all.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { LIST_POLL_MS } from "../../src/mcp/list-watch.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

const CODE = "export default () => 'hi';";

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

/** An SDK client on in-memory streams to a stdio connection of `userId` served by this app. */
async function stdioClient(userId: string): Promise<{ client: Client; close(): Promise<void> }> {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = await t.app.mcp.connectStdio(userId, { input, output });
  const transport: Transport = {
    async start() {
      let buffer = "";
      output.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) transport.onmessage?.(JSON.parse(line));
        }
      });
    },
    async send(message) {
      input.write(`${JSON.stringify(message)}\n`);
    },
    async close() {
      transport.onclose?.();
    },
  };
  const client = new Client({ name: "stdio-local", version: "1" });
  await client.connect(transport);
  return { client, close: async () => { await client.close(); await served.close(); } };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 4 * LIST_POLL_MS)); // past several polls of the watch

test("a tool saved over HTTP in the same process is told to the stdio client once, and the listing follows", async () => {
  const sam = await t.userWithToken("sam", { grants: ["knot.mcp", "knot.tools.author"] });
  const ann = await t.userWithToken("ann", { grants: ["knot.tools.author"] });
  const { client, close } = await stdioClient(sam.user.id);
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  try {
    const saved = await request(`${t.url}/api/tools`, sam.token, { method: "POST", body: JSON.stringify({ name: "mine", code: CODE }) });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    await settle();
    assert.equal(changed, 1, "told once: not by the surface and again by the watch");
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === "mine"));

    const hidden = await request(`${t.url}/api/tools`, ann.token, { method: "POST", body: JSON.stringify({ name: "anns_own", code: CODE }) });
    assert.equal(hidden.status, 201, JSON.stringify(hidden.body));
    await settle();
    assert.equal(changed, 1, "a tool sam cannot see is not told to him");
  } finally {
    await close();
  }
});
