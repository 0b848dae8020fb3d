/**
 * Attack family: reading what an author saved while a tool was private. Every save is a version
 * and shared readers may browse the history (diff, restore into their own editor) — so sharing a
 * tool today must not publish the key pasted into version 1 and removed in version 2.
 * Guarantee: the owner sees every version; anyone else sees only the versions whose own saved
 * sharing included them (everyone, or a group they are in), through the list and by number alike
 * (a hidden version is NOT_FOUND, like one that never existed). Pinned lib versions follow the same
 * rule at run time (test/tools/attack-lib-squatting.test.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { forEachAppBackend } from "../helpers/app-backends.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

const AUTHOR = "knot.tools.author";
const code = (marker: string) => `export default () => "${marker}";\n`;

forEachAppBackend((backend) => {
  describe("shared readers see only the versions that were shared with them", () => {
    let t: TestApp;
    let alice: string, bob: string, olga: string;
    let id: string;
    const api = (token: string, method: string, path: string, body?: unknown) =>
      request(`${t.url}${path}`, token, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const put = async (body: Record<string, unknown>) => assert.equal((await api(alice, "PUT", `/api/tools/${id}`, body)).status, 200);
    const versions = async (token: string) => {
      const res = await api(token, "GET", `/api/tools/${id}/versions`);
      return res.status === 200 ? (res.body.versions as { version: number }[]).map((v) => v.version) : res.status;
    };

    before(async () => {
      t = await startApp({ config: { ...(await backend.database()) } });
      alice = (await t.userWithToken("alice", { grants: [AUTHOR] })).token;
      bob = (await t.userWithToken("bob")).token;
      olga = (await t.userWithToken("olga", { groups: ["ops"] })).token;
      const res = await api(alice, "POST", "/api/tools", { name: "report", code: code("SECRET-KEY-v1") });
      id = res.body.tool.id;
      await put({ code: code("v2, key removed") }); // still private
      await put({ sharing: "@ops" }); // v3: ops only
      await put({ sharing: "everyone", code: code("v4 public") });
    });
    after(() => t?.close());

    it("the owner sees every version; others see only those shared with them when saved", async () => {
      assert.deepEqual(await versions(alice), [4, 3, 2, 1]);
      assert.deepEqual(await versions(bob), [4]);
      assert.deepEqual(await versions(olga), [4, 3]);
    });

    it("asking for a hidden version by number is NOT_FOUND and leaks nothing", async () => {
      for (const n of [1, 2, 3]) {
        const res = await api(bob, "GET", `/api/tools/${id}/versions/${n}`);
        assert.equal(res.status, 404, `version ${n}`);
        assert.equal(res.body.code, "NOT_FOUND");
        assert.doesNotMatch(JSON.stringify(res.body), /SECRET-KEY/);
      }
      assert.equal((await api(olga, "GET", `/api/tools/${id}/versions/3`)).status, 200);
      assert.equal((await api(olga, "GET", `/api/tools/${id}/versions/1`)).status, 404);
      assert.match(JSON.stringify((await api(alice, "GET", `/api/tools/${id}/versions/1`)).body), /SECRET-KEY-v1/);
    });

    it("toggling sharing off and on does not open the versions saved in between", async () => {
      await put({ sharing: "private", code: code("v5 private again, SECRET-KEY-v5") });
      assert.equal(await versions(bob), 404, "an unshared tool is invisible, history included");
      await put({ sharing: "everyone", code: code("v6 public again") });
      assert.deepEqual(await versions(bob), [6, 4]);
      assert.equal((await api(bob, "GET", `/api/tools/${id}/versions/5`)).status, 404);
    });
  });
});
