/**
 * The issue 15 example plugin (examples/surface-plugins/atlas), which uses every key of the
 * plugin surface, next to the shipped example plugins: it passes `plugins check`, loads, and each
 * key does what it says (navigation, interactive page, nested parameters and their masking,
 * areas, request.assistant, the lib version, the opaque-handle client SDK).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { cli } from "./helpers/cli.ts";
import { EXAMPLE_PLUGINS, request, startApp, tempDir, type TestApp } from "./helpers/fixtures.ts";
import { connect } from "./mcp/helpers.ts";

const ATLAS = path.resolve(import.meta.dirname, "../examples/surface-plugins/atlas");

describe("examples/surface-plugins/atlas", () => {
  let root: string;
  let t: TestApp;
  let manager: string;

  before(async () => {
    root = tempDir("knot-atlas-");
    fs.cpSync(EXAMPLE_PLUGINS, root, { recursive: true });
    fs.cpSync(ATLAS, path.join(root, "atlas"), { recursive: true });
    t = await startApp({ pluginsDir: root, config: { plugins: { atlas: { greeting: "hi" } } } });
    manager = (await t.userWithToken("mo", { grants: ["plugin.atlas.view", "plugin.atlas.manage", "knot.mcp", "knot.tools.author"] })).token;
  });
  after(() => t?.close());

  it("passes plugins check and loads beside the other examples, with no failure or warning", () => {
    const config = path.join(tempDir(), "knot.toml");
    fs.writeFileSync(config, '[plugins.atlas]\ngreeting = "hi"\n');
    const checked = cli(["plugins", "check", root, "--config", config]);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /^ok atlas 1\.2\.0: 6 handlers, 2 MCP tools, 1 exports, 2 menus, 1 field handlers$/m);
    assert.deepEqual([...t.app.pool.registry.loaded.keys()].sort(), ["atlas", "demo", "metrics", "wordcount"]);
    assert.deepEqual(t.app.pool.registry.failed, []);
    assert.deepEqual(t.app.pool.registry.warnings, []);
  });

  it("lists every key: navigation, areas, lib version, dependencies", async () => {
    const admin = (await t.userWithToken("root", { admin: true })).token;
    const atlas = (await request(`${t.url}/api/plugins`, admin)).body.loaded.find((p: any) => p.name === "atlas");
    assert.deepEqual(atlas.dependencies.map((d: any) => [d.plugin, d.range]), [["demo", ">=1.0"]]);
    assert.deepEqual(atlas.libs, [{ stem: "geo", version: "0.3.1" }]);
    assert.deepEqual(atlas.areas.map((a: any) => [a.area, a.handlers, a.mcpTools]), [
      ["content", ["suggest_place", "regions_data", "add_place", "open_trip", "trip_add"], ["atlas_add_place"]],
      ["settings", ["purge_places"], ["atlas_whoami"]],
    ]);
    const nav = (await request(`${t.url}/api/plugins/navigation`, manager)).body.plugins.find((p: any) => p.name === "atlas");
    assert.deepEqual(nav.menus.map((m: any) => m.label), ["Atlas", "Atlas handbook"]);
    assert.deepEqual(nav.fieldHandlers.map((f: any) => f.label), ["Suggest a place"]);
    assert.equal(nav.logoDark, "/api/plugins/atlas/assets/logo-dark.svg");
    const pages = (await request(`${t.url}/api/pages`, manager)).body.pages;
    assert.deepEqual(pages.find((p: any) => p.plugin === "atlas"), { plugin: "atlas", path: "/places", label: "Atlas places", permission: "plugin.atlas.view", menuLabel: "Places", icon: "/api/plugins/atlas/assets/icons%2Fpin.svg", default: true });
  });

  it("the interactive page: a form with dynamic options, an action answering an envelope", async () => {
    const page = await request(`${t.url}/api/pages/atlas/places`, manager);
    assert.deepEqual(page.body.problems, []);
    const form = page.body.blocks.find((b: any) => b.type === "form");
    assert.deepEqual(form.fields.find((f: any) => f.name === "region").options, [{ value: "north", label: "North" }, { value: "south", label: "South" }]);
    const added = await request(`${t.url}/api/pages/atlas/places/actions/add_place`, manager, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "name=Harbour&region=south&visitors=3&coastal=true",
    });
    assert.equal(added.body.toast, "Added Harbour");
    assert.deepEqual(added.body.blocks[0].rows.at(-1), ["Harbour", "south", "coast"]);
  });

  it("the nested-parameter MCP tool validates, fills defaults and masks; handlers see request.assistant", async () => {
    const { client } = await connect(t.url, manager, "atlas-assistant");
    try {
      const res = await client.callTool({ name: "atlas_add_place", arguments: { name: "Cape", contact: { phone: "+1-555-0199" }, keys: [{ token: "k-secret" }] } });
      assert.equal((res.structuredContent as any).contactKind, "office", "nested default filled");
      const missing = await client.callTool({ name: "atlas_add_place", arguments: { name: "Cape", contact: {} } });
      assert.match(JSON.stringify(missing.content), /contact\.phone/);
      const who = await client.callTool({ name: "atlas_whoami", arguments: {} });
      assert.deepEqual((who.structuredContent as any).assistant, { client: "atlas-assistant/9.8.7", connection: null });
    } finally {
      await client.close();
    }
    const text = JSON.stringify(await t.app.store.queryAudit({ tool: "atlas_add_place" }));
    assert.ok(!text.includes("+1-555-0199") && !text.includes("k-secret"), "nested personal and secret values are masked");
  });

  it("the client SDK keeps state behind an opaque handle that only its opener can use", async () => {
    const code = `import { Trip } from "plugin:atlas";
export default async () => { const trip = await Trip.open(); await trip.add("Lighthouse"); return { stops: await trip.add("Harbour"), handle: trip.handle }; };`;
    const saved = await request(`${t.url}/api/tools`, manager, { method: "POST", body: JSON.stringify({ name: "plan_trip", code }) });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const run = await request(`${t.url}/api/tools/${saved.body.tool.id}/run`, manager, { method: "POST", body: JSON.stringify({ args: {} }) });
    assert.deepEqual(run.body.result?.stops, ["Lighthouse", "Harbour"], JSON.stringify(run.body));
    const other = (await t.userWithToken("eve", { grants: ["plugin.atlas.view"] })).token;
    const stolen = await request(`${t.url}/plugins/atlas/trip_add`, other, { method: "POST", body: JSON.stringify({ handle: run.body.result.handle, stop: "x" }) });
    assert.equal(stolen.status, 403, "another user's handle is refused");
  });
});
