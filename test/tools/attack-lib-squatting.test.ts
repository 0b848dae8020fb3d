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
import fs from "node:fs";
import path from "node:path";
import { openStore } from "../../src/store/index.ts";
import { forEachAppBackend } from "../helpers/app-backends.ts";
import { cli } from "../helpers/cli.ts";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { parseUserToolInput } from "../../src/tools/user-tool-input.ts";

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

type Pin = { name: string; libId: string; version: number; status: string; owner: string | null; libName: string | null; latestVersion: number | null };

forEachAppBackend((backend) => {
  describe("lib pins: a rename, a delete-and-recreate or a new share never swaps code into a saved tool", () => {
    let t: TestApp;
    let root: string, alice: string, bob: string, mallory: string;
    let bobId: string;
    const ids: Record<string, string> = {};

    const api = (token: string, method: string, path: string, body?: unknown) =>
      request(`${t.url}${path}`, token, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const save = async (token: string, key: string, body: Record<string, unknown>) => {
      const res = await api(token, "POST", "/api/tools", body);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      ids[key] = res.body.tool.id;
      return res.body as { tool: { id: string; libPins: { name: string; libId: string; version: number }[] }; diagnostics: { code: string; message: string }[] };
    };
    const edit = async (token: string, key: string, body: Record<string, unknown>) => {
      const res = await api(token, "PUT", `/api/tools/${ids[key]}`, body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const run = async (token: string, key: string) => (await api(token, "POST", `/api/tools/${ids[key]}/run`, {})).body;
    const pins = async (token: string, key: string) => (await api(token, "GET", `/api/tools/${ids[key]}/libs`)).body.pins as Pin[];

    before(async () => {
      t = await startApp({ config: { ...(await backend.database()) } });
      root = (await t.userWithToken("root", { admin: true })).token;
      alice = (await t.userWithToken("alice", { grants: [AUTHOR] })).token;
      const b = await t.userWithToken("bob", { grants: [AUTHOR] });
      bob = b.token;
      bobId = b.user.id;
      mallory = (await t.userWithToken("mallory", { grants: [AUTHOR] })).token;
      // Mallory's lib is the OLDEST, and ready to be renamed onto a popular name.
      await save(mallory, "squat", { name: "scratch", kind: "lib", code: lib("mallory"), sharing: "everyone" });
      await save(alice, "util", { name: "util", kind: "lib", code: `export const who = () => "alice util";\n`, sharing: "everyone" });
      await save(alice, "fmt", { name: "fmt", kind: "lib", sharing: "everyone",
        code: `import { user } from "knot:identity";\nimport { who } from "lib:util";\nexport const tag = () => "lib by alice (" + who() + "), run as " + user().name;\n` });
      const report = await save(bob, "report", { name: "report", code: tool("fmt"), sharing: "everyone" });
      assert.deepEqual(report.tool.libPins, [{ name: "fmt", libId: ids.fmt, version: 1 }], "pinned when saved");
    });
    after(() => t?.close());

    it("an admin runs the saved tool: the pinned lib (and the lib it imports) runs, even after the squatter renames onto both names", async () => {
      assert.equal((await run(root, "report")).result, "lib by alice (alice util), run as root");
      await edit(mallory, "squat", { name: "fmt" });
      const res = await run(root, "report");
      assert.equal(res.ok, true, JSON.stringify(res));
      assert.equal(res.result, "lib by alice (alice util), run as root");
      await edit(mallory, "squat", { name: "util" });
      assert.equal((await run(root, "report")).result, "lib by alice (alice util), run as root", "a lib's own imports are pinned too");
      await edit(mallory, "squat", { name: "fmt" });
    });

    it("saving a tool that imports a name several people share pins nothing and says which qualified names exist", async () => {
      const saved = await save(bob, "ambiguous", { name: "ambiguous", code: tool("fmt"), sharing: "everyone" });
      assert.deepEqual(saved.tool.libPins, []);
      const problem = saved.diagnostics.find((d) => d.code === "LIB_AMBIGUOUS");
      assert.ok(problem, JSON.stringify(saved.diagnostics));
      assert.match(problem.message, /lib:alice__fmt/);
      assert.match(problem.message, /lib:mallory__fmt/);
      const res = await run(bob, "ambiguous");
      assert.equal(res.error?.code, "MODULE_NOT_ALLOWED");
      assert.match(res.error.message, /not pinned/);
      assert.doesNotMatch(JSON.stringify(res), /lib by mallory/);
      const checked = await api(bob, "POST", "/api/tools/check", { code: tool("fmt") });
      assert.ok(checked.body.diagnostics.some((d: { code: string }) => d.code === "LIB_AMBIGUOUS"), "shown as you type too");
      // The editor completes shared libs by the qualified names that always mean them.
      const modules = (await api(bob, "GET", "/api/editor/modules")).body.modules.map((m: { specifier: string }) => m.specifier);
      assert.ok(modules.includes("lib:alice__fmt") && modules.includes("lib:mallory__fmt"), modules.join(","));
      // The qualified name pins exactly alice's lib.
      const qualified = await edit(bob, "ambiguous", { code: tool("alice__fmt") });
      assert.deepEqual(qualified.tool.libPins, [{ name: "alice__fmt", libId: ids.fmt, version: 1 }]);
      const ran = await run(root, "ambiguous");
      assert.equal(ran.result, "lib by alice (alice util), run as root", JSON.stringify(ran));
    });

    it("a new version of the lib is not taken until the owner updates libs; the panel shows it outdated", async () => {
      await edit(alice, "fmt", { code: `import { user } from "knot:identity";\nexport const tag = () => "alice v2, run as " + user().name;\n` });
      assert.equal((await run(root, "report")).result, "lib by alice (alice util), run as root", "still the pinned version 1");
      const [pin] = await pins(bob, "report");
      assert.deepEqual([pin!.status, pin!.version, pin!.latestVersion, pin!.owner, pin!.libName], ["outdated", 1, 2, "alice", "fmt"]);
      const other = await api(root, "POST", `/api/tools/${ids.report}/libs`);
      assert.equal(other.status, 403, "only the owner re-pins");
      const updated = await api(bob, "POST", `/api/tools/${ids.report}/libs`);
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      assert.equal(updated.body.changed, true);
      assert.deepEqual(updated.body.tool.libPins, [{ name: "fmt", libId: ids.fmt, version: 2 }], "update keeps the lib it meant: bob's pin, not a re-resolution of the name");
      assert.equal((await run(root, "report")).result, "alice v2, run as root");
      const again = await api(bob, "POST", `/api/tools/${ids.report}/libs`);
      assert.equal(again.body.changed, false, "nothing to re-pin: no new version");
    });

    it("a deleted (and recreated) pinned lib fails the run clearly; nothing is substituted", async () => {
      assert.equal((await api(alice, "DELETE", `/api/tools/${ids.fmt}`)).status, 200);
      await save(alice, "fmt2", { name: "fmt", kind: "lib", code: lib("alice, recreated"), sharing: "everyone" });
      const res = await run(root, "report");
      assert.equal(res.ok, false);
      assert.equal(res.error.code, "MODULE_NOT_ALLOWED");
      assert.match(res.error.message, /lib:fmt .*deleted.*Update libs/);
      assert.equal((await pins(bob, "report"))[0]!.status, "deleted");
      // Update libs now finds two libs called fmt (alice's new one and mallory's): it refuses to guess.
      const updated = await api(bob, "POST", `/api/tools/${ids.report}/libs`);
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.body.tool.libPins, []);
      assert.ok(updated.body.diagnostics.some((d: { code: string }) => d.code === "LIB_AMBIGUOUS"));
      assert.match((await run(root, "report")).error.message, /not pinned/);
    });

    it("a pinned lib that is unshared, or pinned at a version saved before it was shared, fails clearly for others", async () => {
      await save(alice, "secretlib", { name: "secretlib", kind: "lib", code: `export const tag = () => "secret v1";\n` });
      await save(alice, "uses", { name: "uses", code: tool("secretlib"), sharing: "everyone" });
      assert.equal((await run(alice, "uses")).result, "secret v1");
      let res = await run(root, "uses");
      assert.equal(res.error?.code, "MODULE_NOT_ALLOWED");
      assert.match(res.error.message, /not shared with you/);
      await edit(alice, "secretlib", { sharing: "everyone", code: `export const tag = () => "shared v2";\n` });
      res = await run(root, "uses");
      assert.equal(res.error?.code, "MODULE_NOT_ALLOWED");
      assert.match(res.error.message, /version 1 .*not shared with you when it was saved/);
      assert.doesNotMatch(JSON.stringify(res), /secret v1/);
      assert.equal((await pins(root, "uses"))[0]!.status, "version-unreadable");
      assert.equal((await api(alice, "POST", `/api/tools/${ids.uses}/libs`)).body.changed, true);
      assert.equal((await run(root, "uses")).result, "shared v2");
      await edit(alice, "secretlib", { sharing: "private" });
      res = await run(root, "uses");
      assert.match(res.error.message, /not shared with you/);
      assert.equal((await pins(root, "uses"))[0]!.status, "unreadable");
      assert.equal((await pins(root, "uses"))[0]!.owner, null, "nothing about a private lib is shown to others");
    });

    it("a tool saved before pinning (no pins) runs no lib until its owner updates libs", async () => {
      const legacy = await t.app.store.createUserTool(bobId, parseUserToolInput({ name: "legacy", code: tool("util"), sharing: "everyone" }));
      ids.legacy = legacy.id;
      const res = await run(root, "legacy");
      assert.equal(res.error?.code, "MODULE_NOT_ALLOWED");
      assert.match(res.error.message, /lib:util is not pinned.*Update libs/);
      // "util" is now alice's and mallory's (renamed): bob must choose.
      await edit(bob, "legacy", { code: tool("alice__util").replace("tag()", "who()").replace("{ tag }", "{ who }") });
      assert.equal((await run(root, "legacy")).result, "alice util");
    });

    it("pins cannot be forged through the API", async () => {
      const res = await api(mallory, "POST", "/api/tools", { name: "forged", code: tool("fmt"), libPins: [{ name: "fmt", libId: ids.secretlib, version: 1 }] });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, "INVALID_ARGUMENT");
      // A draft run ignores anything but its code: pins are made from what mallory may import.
      const draft = await api(mallory, "POST", "/api/tools/run", { code: tool("secretlib"), id: ids.uses, libPins: [{ name: "secretlib", libId: ids.secretlib, version: 1 }] });
      assert.equal(draft.body.ok, false, JSON.stringify(draft.body));
      assert.equal(draft.body.error.code, "MODULE_NOT_ALLOWED");
      assert.doesNotMatch(JSON.stringify(draft.body), /secret v1|shared v2/);
    });
  });
});

describe("knot-tools tools add pins lib imports as the API does", () => {
  it("a tool added from a file is pinned to the lib its author means; a later squat changes nothing", async () => {
    const dir = tempDir();
    const db = path.join(dir, "k.db");
    for (const user of ["alice", "bob", "mallory"]) assert.equal(cli(["users", "add", user, "--db", db]).code, 0);
    fs.writeFileSync(path.join(dir, "fmt.js"), lib("alice"));
    fs.writeFileSync(path.join(dir, "report.js"), tool("fmt"));
    const libId = cli(["tools", "add", path.join(dir, "fmt.js"), "--user", "alice", "--kind", "lib", "--share", "everyone", "--db", db]).stdout.trim();
    const toolId = cli(["tools", "add", path.join(dir, "report.js"), "--user", "bob", "--db", db]).stdout.trim();
    fs.writeFileSync(path.join(dir, "fmt2.js"), lib("mallory"));
    assert.equal(cli(["tools", "add", path.join(dir, "fmt2.js"), "--user", "mallory", "--name", "fmt", "--kind", "lib", "--share", "everyone", "--db", db]).code, 0);
    assert.equal(cli(["tools", "add", path.join(dir, "report.js"), "--user", "bob", "--db", db]).code, 0, "re-adding keeps the pin");
    const store = await openStore({ path: db });
    try {
      const saved = await store.getUserTool(toolId);
      assert.deepEqual(saved?.libPins, [{ name: "fmt", libId, version: 1 }]);
      assert.equal(saved?.version, 2);
    } finally {
      await store.close();
    }
  });
});
