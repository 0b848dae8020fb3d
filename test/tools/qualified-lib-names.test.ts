/**
 * The name grammars are one module (sandbox/guest/names.ts): a lib shared by a user whose name
 * holds a `.` is imported by its owner-qualified name (`lib:alice.smith__fmt`), which the editor
 * lists, the save pins and the sandbox linker now accepts alike. Before the grammars were shared,
 * the linker had its own copy without `.` and refused the import at run time (MODULE_NOT_ALLOWED).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

const AUTHOR = "knot.tools.author";

describe("owner-qualified lib names follow the user-name grammar everywhere", () => {
  let t: TestApp;
  let bob: string;
  const post = async (token: string, body: Record<string, unknown>) => {
    const res = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify(body) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { tool: { id: string }; diagnostics: unknown[] };
  };

  before(async () => {
    t = await startApp();
    const alice = (await t.userWithToken("alice.smith", { grants: [AUTHOR] })).token;
    bob = (await t.userWithToken("bob", { grants: [AUTHOR] })).token;
    await post(alice, { name: "fmt", kind: "lib", code: `export const tag = () => "lib by alice.smith";\n`, sharing: "everyone" });
  });
  after(() => t.close());

  it("a tool importing lib:alice.smith__fmt saves without diagnostics and runs", async () => {
    const saved = await post(bob, { name: "report", code: `import { tag } from "lib:alice.smith__fmt";\nexport default () => tag();\n` });
    assert.deepEqual(saved.diagnostics, []);
    const res = await request(`${t.url}/api/tools/${saved.tool.id}/run`, bob, { method: "POST", body: "{}" });
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    assert.equal(res.body.result, "lib by alice.smith");
  });
});
