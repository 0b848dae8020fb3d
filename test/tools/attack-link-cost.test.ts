/**
 * Attack (through the server): make a run's module graph expensive. A user saves libs at the
 * 256 KB save limit and a tool importing many of them; every run then parsed each lib on the
 * server's thread (the pin check and the module-set scan kept only texts up to 64 KB, and any lib
 * mentioning "lib:" is scanned) and again on a sandbox worker's thread while linking, outside every
 * run limit — enough to stall the server and cost the worker its heartbeats. The tool and its libs
 * now hold at most MAX_MODULE_GRAPH_CHARS together, checked before any lib is parsed, and every
 * source within the save limit is memoized.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { MAX_MODULE_GRAPH_CHARS } from "../../sandbox/protocol.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

const AUTHOR = "knot.tools.author";
/** A lib of ~250 KB that mentions "lib:" (so the host scans it); a string literal parses fast. */
const bigLib = (n: number) => `// see lib:nothing\nexport const s${n} = ${JSON.stringify("x".repeat(250 * 1024))};\n`;
const importing = (count: number) =>
  `${Array.from({ length: count }, (_, n) => `import { s${n} } from "lib:big${n}";`).join("\n")}\nexport default () => "linked " + (${Array.from({ length: count }, (_, n) => `s${n}.length`).join(" + ")});\n`;

describe("a tool and its libs hold at most MAX_MODULE_GRAPH_CHARS of code", () => {
  let t: TestApp;
  let mallory: string;
  const post = async (body: Record<string, unknown>) => {
    const res = await request(`${t.url}/api/tools`, mallory, { method: "POST", body: JSON.stringify(body) });
    assert.equal(res.status, 201, JSON.stringify(res.body).slice(0, 300));
    return res.body.tool.id as string;
  };
  const run = (id: string) => request(`${t.url}/api/tools/${id}/run`, mallory, { method: "POST", body: "{}" });

  before(async () => {
    t = await startApp();
    mallory = (await t.userWithToken("mallory", { grants: [AUTHOR] })).token;
    for (let n = 0; n < 5; n++) await post({ name: `big${n}`, kind: "lib", code: bigLib(n) });
  });
  after(() => t.close());

  it("three big libs link and run", async () => {
    const res = await run(await post({ name: "three", code: importing(3) }));
    assert.equal(res.body.ok, true, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.result, `linked ${3 * 250 * 1024}`);
  });

  it("a fifth big lib is refused before the run, naming the lib and the limit", async () => {
    const res = await run(await post({ name: "five", code: importing(5) }));
    assert.equal(res.body.ok, false, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.error.code, "MODULE_NOT_ALLOWED");
    assert.match(res.body.error.message, new RegExp(`lib:big4 \\(pinned by the tool\\) is too large.*at most ${MAX_MODULE_GRAPH_CHARS.toLocaleString("en-US")} characters`));
  });
});
