/** Interactive plugin pages over HTTP: forms and buttons in the document, actions answering an envelope, audited and gated. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeFormPlugins } from "../helpers/forms-plugin.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
let t: TestApp;
let manager: string;

before(async () => {
  const root = tempDir();
  writeFormPlugins(root);
  t = await startApp({ pluginsDir: root });
  manager = (await t.userWithToken("mia", { grants: ["plugin.fleet.view", "plugin.fleet.manage"] })).token;
});
after(() => t.close());

test("the page document carries the form (dynamic options filled from the data handler) and the button", async () => {
  const page = await request(`${t.url}/api/pages/fleet/hosts`, manager);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  assert.deepEqual(page.body.problems, []);
  const form = page.body.blocks[1];
  assert.equal(form.type, "form");
  assert.equal(form.action, "add_host");
  assert.equal(form.submit, "Add host");
  assert.deepEqual(form.fields.map((f: any) => [f.name, f.type, f.value]), [["host", "text", ""], ["cores", "number", "4"], ["region", "select", "us"], ["pool", "select", ""], ["monitored", "checkbox", "true"]]);
  assert.deepEqual(form.fields[2].options, [{ value: "eu", label: "eu" }, { value: "us", label: "United States" }]);
  assert.deepEqual(form.fields[3].options, [{ value: "blue", label: "blue" }, { value: "green", label: "Green pool" }]);
  assert.equal(form.fields[3].data, "pools_data");
  assert.deepEqual(page.body.blocks[2], { type: "button", label: "Restart all", action: "restart", params: { scope: "all" } });
  const dataRows = await t.app.store.queryAudit({ tool: "fleet/pools_data" });
  assert.equal(dataRows[0]?.outcome, "ok", "the data handler's call is audited");
});

test("a form-encoded action reaches the handler as params and answers the envelope; the call is audited and masked", async () => {
  const body = new URLSearchParams({ host: "web-1", cores: "8", region: "eu", pool: "green", monitored: "false", secret_note: "hunter2" }).toString();
  const res = await request(`${t.url}/api/pages/fleet/hosts/actions/add_host`, manager, { method: "POST", headers: FORM, body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.toast, "Added web-1");
  assert.deepEqual(res.body.problems, []);
  assert.deepEqual(res.body.blocks[0].rows, [["web-1", "8", "eu", "green", "false"]]);
  assert.equal(res.body.blocks[1].fields[3].options.length, 2, "forms in the new blocks get their dynamic options too");
  const rows = await t.app.store.queryAudit({ tool: "fleet/add_host" });
  assert.equal(rows[0]?.outcome, "ok");
  assert.equal((rows[0]?.args as any).host, "web-1");
  assert.match(String((rows[0]?.args as any).secret_note), /^masked:/);
});

test("rendering a page is audited with the masks its handler's MCP tools declare", async () => {
  const res = await request(`${t.url}/api/pages/fleet/hosts?owner_email=ada%40example.com&region=eu`, manager);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [row] = await t.app.store.queryAudit({ tool: "page:fleet/hosts" });
  assert.equal((row?.args as any).region, "eu");
  assert.match(String((row?.args as any).owner_email), /^masked:/, "a personal parameter was stored in clear");
});

test("a JSON action body works too; a string answer is a toast; a same-origin redirect passes", async () => {
  const admin = (await t.userWithToken("root", { admin: true })).token;
  const restart = await request(`${t.url}/api/pages/fleet/hosts/actions/restart`, admin, { method: "POST", body: JSON.stringify({ scope: "all" }) });
  assert.deepEqual(restart.body, { toast: "restarted", problems: [] });
  const away = await request(`${t.url}/api/pages/fleet/hosts/actions/go_away`, admin, { method: "POST", headers: FORM, body: "to=%2F%23%2Fpages%2Ffleet%2Fhosts" });
  assert.deepEqual(away.body, { redirect: "/#/pages/fleet/hosts", problems: [] });
});

test("a refused action is audited with its refusal, and the gate is the handler's own", async () => {
  const res = await request(`${t.url}/api/pages/fleet/hosts/actions/restart`, manager, { method: "POST", headers: FORM, body: "scope=all" });
  assert.equal(res.status, 403);
  assert.equal(res.body.code, "PERMISSION_DENIED");
  const rows = await t.app.store.queryAudit({ tool: "fleet/restart" });
  assert.ok(rows.some((row) => row.outcome === "PERMISSION_DENIED"));
});
