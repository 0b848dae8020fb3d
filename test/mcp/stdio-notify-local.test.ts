/**
 * A stdio connection served by the same process as the HTTP server (`connectStdio`, as
 * `knot-tools mcp` serves one): a tool saved over HTTP is told to it once — not once by the
 * surface and again by the list watch that follows other processes' changes — and a change it
 * cannot see is not told at all.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { LIST_POLL_MS } from "../../src/mcp/list-watch.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { stdioClient } from "./helpers.ts";

const CODE = "export default () => 'hi';";

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

const settle = () => new Promise((resolve) => setTimeout(resolve, 4 * LIST_POLL_MS)); // past several polls of the watch

test("a tool saved over HTTP in the same process is told to the stdio client once, and the listing follows", async () => {
  const sam = await t.userWithToken("sam", { grants: ["knot.mcp", "knot.tools.author"] });
  const ann = await t.userWithToken("ann", { grants: ["knot.tools.author"] });
  const { client, close } = await stdioClient(t, sam.user.id, "stdio-local");
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
