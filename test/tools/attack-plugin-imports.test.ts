/**
 * Attack family: reaching into the trusted plugin pool by import (the user-side twin of knot's
 * TestUserToolCannotImportPlugin), through the real stack: API → runner → sandbox linker → the
 * host's resolveModule. A plugin's main module and its `libs/` live in the host process with
 * Node's full reach; a user tool may import only the client modules the plugin declared in
 * `export = [...]`, which run inside the caller's own sandbox. Guarantee: `plugin:<name>` is the
 * first declared client module (never main.js), `plugin:<name>/<stem>` only a declared client
 * module (never a lib), and every other spelling is MODULE_NOT_ALLOWED before any code runs.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

describe("user tools cannot import a plugin's main module or libs", () => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await startApp();
    token = (await t.userWithToken("ivy", { grants: ["knot.tools.author"] })).token;
  });
  after(() => t.close());

  const draft = async (code: string) => (await request(`${t.url}/api/tools/run`, token, { method: "POST", body: JSON.stringify({ code }) })).body;

  it("libs and main modules are MODULE_NOT_ALLOWED, in every spelling", async () => {
    for (const specifier of ["plugin:demo/calc", "plugin:demo/main", "plugin:demo/libs", "plugin:demo/libs/calc", "plugin:demo/../demo/libs/calc", "plugin:metrics/calc", "plugin:ghost", "plugin:DEMO"]) {
      const body = await draft(`import * as m from ${JSON.stringify(specifier)};\nexport default () => Object.keys(m);`);
      assert.equal(body.ok, false, `${specifier}: ${JSON.stringify(body)}`);
      assert.equal(body.error.code, "MODULE_NOT_ALLOWED", specifier);
      const dynamic = await draft(`export default async () => { try { return Object.keys(await import(${JSON.stringify(specifier)})) } catch (e) { return e.code } };`);
      assert.equal(dynamic.result, "MODULE_NOT_ALLOWED", `dynamic ${specifier}`);
    }
  });

  it("plugin:<name> is the first client module only: no handler, no lib member, no flattening", async () => {
    const body = await draft(`import * as demo from "plugin:demo";\nimport * as format from "plugin:demo/format";\nexport default () => ({ demo: Object.keys(demo).sort(), format: Object.keys(format).sort() });`);
    assert.equal(body.ok, true, JSON.stringify(body));
    assert.deepEqual(body.result, { demo: ["Widgets"], format: ["titled"] });
    const named = await draft(`import { echo_word } from "plugin:demo";\nexport default () => typeof echo_word;`);
    assert.equal(named.ok, false, "a handler of main.js is not an export of plugin:demo");
    assert.doesNotMatch(JSON.stringify(named), /examples\/plugins|\/work\//, "no host path in the refusal");
  });

  it("importing a member a client module does not export is MODULE_NOT_ALLOWED naming it and the module (issue 15)", async () => {
    for (const [code, member, module] of [
      [`import { echo_word } from "plugin:demo";\nexport default () => 1;`, "echo_word", "plugin:demo"],
      [`import { Widgets, nope } from "plugin:demo";\nexport default () => 1;`, "nope", "plugin:demo"],
      [`import { titled, add } from "plugin:demo/format";\nexport default () => 1;`, "add", "plugin:demo/format"],
      [`import { toString } from "knot:tool";\nexport default () => 1;`, "toString", "knot:tool"],
      [`export { secretThing } from "plugin:demo";\nexport default () => 1;`, "secretThing", "plugin:demo"],
    ] as const) {
      const body = await draft(code);
      assert.equal(body.ok, false, code);
      assert.equal(body.error.code, "MODULE_NOT_ALLOWED", `${code}: ${JSON.stringify(body.error)}`);
      assert.equal(body.error.message, `identifier not found: ${member} in ${module}`, code);
    }
  });
});
