/**
 * Attack family: lib squatting. A user tool imports `lib:<name>`; when someone else runs it, the
 * host resolves that import. An untrusted user who shares a lib of the same name (created first,
 * so it sorts first) must not get their code into another author's tool, where it would run with
 * the requester's authority inside a tool the requester trusts. Guarantee: a saved tool's
 * `lib:<name>` means the lib its *author* would import (their own, else the one shared with them),
 * and the requester must be allowed to use that very lib — no substitution, ever.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

const AUTHOR = "knot.tools.author";
const tool = (libName: string) => `import { tag } from "lib:${libName}";\nexport default () => tag();\n`;
const lib = (who: string) => `import { user } from "knot:identity";\nexport const tag = () => "lib by ${who}, run as " + user().name;\n`;

describe("a saved tool's lib: imports cannot be squatted by another user's shared lib", () => {
  let t: TestApp;
  let olaf: string, vera: string;
  let teamToolId: string, privateLibToolId: string;

  const post = async (token: string, body: Record<string, unknown>) => {
    const res = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify(body) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.tool.id as string;
  };
  const run = (token: string, id: string) => request(`${t.url}/api/tools/${id}/run`, token, { method: "POST", body: "{}" });

  before(async () => {
    t = await startApp();
    olaf = (await t.userWithToken("olaf", { groups: ["team"], grants: [AUTHOR] })).token;
    const mallory = (await t.userWithToken("mallory", { grants: [AUTHOR] })).token;
    vera = (await t.userWithToken("vera", { groups: ["team"], grants: [AUTHOR] })).token;
    // Mallory squats both names first (so her libs sort first), shared with everyone.
    await post(mallory, { name: "fmt", kind: "lib", code: lib("mallory"), sharing: "everyone" });
    await post(mallory, { name: "priv", kind: "lib", code: lib("mallory"), sharing: "everyone" });
    // Olaf shares one lib with his team and keeps the other private; both his tools are shared.
    await post(olaf, { name: "fmt", kind: "lib", code: lib("olaf"), sharing: "@team" });
    await post(olaf, { name: "priv", kind: "lib", code: lib("olaf") });
    teamToolId = await post(olaf, { name: "report", code: tool("fmt"), sharing: "@team" });
    privateLibToolId = await post(olaf, { name: "report2", code: tool("priv"), sharing: "everyone" });
    // Vera has a lib of the same name too.
    await post(vera, { name: "fmt", kind: "lib", code: lib("vera") });
  });
  after(() => t.close());

  it("a teammate running the author's tool gets the author's lib, not the older squatter's nor their own", async () => {
    assert.equal((await run(olaf, teamToolId)).body.result, "lib by olaf, run as olaf");
    const res = await run(vera, teamToolId);
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    assert.equal(res.body.result, "lib by olaf, run as vera");
  });

  it("when the author's lib is private, others get MODULE_NOT_ALLOWED, never a substitute", async () => {
    assert.equal((await run(olaf, privateLibToolId)).body.result, "lib by olaf, run as olaf");
    const res = await run(vera, privateLibToolId);
    assert.equal(res.body.ok, false, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "MODULE_NOT_ALLOWED");
    assert.doesNotMatch(JSON.stringify(res.body), /mallory/);
  });

  it("a draft (no saved author) imports the caller's own lib first, as before", async () => {
    const res = await request(`${t.url}/api/tools/run`, vera, { method: "POST", body: JSON.stringify({ code: tool("fmt") }) });
    assert.equal(res.body.result, "lib by vera, run as vera", JSON.stringify(res.body));
  });
});
