/**
 * The editor's parameter editor with nested parameters, in a real browser: an object parameter
 * gets members (one secret), a list gets an object item type with its own members; the schema
 * preview (built by the server) shows the nesting, and saving stores it. At the server's nesting
 * limit the editor offers exactly what the server accepts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Browser } from "playwright-core";
import { PARAMETER_LIMITS } from "../../src/plugins/manifest/parameter-limits.ts";
import { request, type TestApp } from "../helpers/fixtures.ts";
import { browserSuite, screenshot, signIn } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;

browserSuite((started, launched) => {
  app = started;
  browser = launched;
});

test("object members and list items are edited, previewed and saved", async () => {
  const token = (await app.userWithToken("nia", { grants: ["knot.tools.author"] })).token;
  const { context, page } = await signIn(browser, app, token);
  await page.goto("/#/tools");
  await page.getByRole("button", { name: "New tool or lib" }).click();
  await page.getByLabel("Name", { exact: true }).fill("call_people");
  await page.getByRole("button", { name: "Create" }).click();
  await page.getByRole("heading", { level: 1, name: /call_people/ }).waitFor();
  await page.getByRole("tab", { name: "Parameters" }).click();

  const first = page.locator("fieldset.param-row").first();
  await first.getByLabel("Name", { exact: true }).first().fill("contact");
  await first.getByLabel("Type").first().selectOption("object");
  const members = page.getByRole("group", { name: "Members of contact" });
  await members.getByRole("button", { name: "Add member" }).click();
  await members.getByLabel("Name", { exact: true }).fill("phone");
  await members.getByRole("checkbox", { name: "Required" }).check();
  await members.getByRole("checkbox", { name: "Personal" }).check();

  await page.getByRole("button", { name: "Add parameter" }).click();
  const second = page.locator(".param-editor:not(.nested) > fieldset.param-row").nth(1);
  await second.getByLabel("Name", { exact: true }).first().fill("keys");
  await second.getByLabel("Type").first().selectOption("list");
  await second.getByLabel("Item type").selectOption("object");
  const itemMembers = page.getByRole("group", { name: "Item members of keys" });
  await itemMembers.getByRole("button", { name: "Add item member" }).click();
  await itemMembers.getByLabel("Name", { exact: true }).fill("token");
  await itemMembers.getByRole("checkbox", { name: "Secret" }).check();

  await page.getByRole("tab", { name: "Schema" }).click();
  const schema = page.getByLabel("Tool definition as JSON");
  await schema.filter({ hasText: '"token"' }).waitFor();
  const definition = JSON.parse((await schema.textContent()) ?? "{}");
  assert.deepEqual(definition.inputSchema.properties.contact, { type: "object", description: "Who to greet.", properties: { phone: { type: "string" } }, required: ["phone"] });
  assert.deepEqual(definition.inputSchema.properties.keys, { type: "array", items: { type: "object", properties: { token: { type: "string" } } } });
  await screenshot(page, "param-editor-nested");

  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText("Saved as version 2.").waitFor();
  const id = decodeURIComponent(page.url().split("#/tools/")[1] ?? "");
  const saved = await request(`${app.url}/api/tools/${id}`, token);
  const [contact, keys] = saved.body.tool.parameters;
  assert.equal(contact.properties[0].personal, true);
  assert.equal(keys.items.properties[0].secret, true);
  await context.close();
});

/** Objects nested down to `level`, the last holding `members`. */
function nestedTo(level: number, members: unknown[], depth = 1): unknown {
  return { name: `o${depth}`, type: "object", properties: depth === level ? members : [nestedTo(level, members, depth + 1)] };
}

test("at the nesting limit the editor offers a member-less object or list, and no members deeper", async () => {
  const deepest = PARAMETER_LIMITS.maxNesting;
  const token = (await app.userWithToken("ivo", { grants: ["knot.tools.author"] })).token;
  // o1 … o(deepest-2) hold `rows` (a list one level above the limit) and `leaf` (at the limit) in o(deepest-1).
  const parameters = [nestedTo(deepest - 2, [{ name: "rows", type: "list" }, { name: `o${deepest - 1}`, type: "object", properties: [{ name: "leaf", type: "string" }] }])];
  const created = await request(`${app.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "deep", code: "export default () => 1;\n", parameters }) });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id: string = created.body.tool.id;
  const { context, page } = await signIn(browser, app, token);
  await page.goto(`/#/tools/${encodeURIComponent(id)}`);
  await page.getByRole("tab", { name: "Parameters" }).click();

  const rows = page.locator('fieldset[data-param="rows"]');
  assert.deepEqual(await rows.getByLabel("Item type").locator("option").allTextContents(), ["any JSON value", "string", "int", "float", "bool", "list", "object"]);
  await rows.getByLabel("Item type").selectOption("object");
  assert.equal(await page.getByRole("group", { name: "Item members of rows" }).count(), 0);

  const leaf = page.locator('fieldset[data-param="leaf"]');
  assert.deepEqual(await leaf.getByLabel("Type").locator("option").allTextContents(), ["string", "int", "float", "bool", "list", "object"]);
  await leaf.getByLabel("Type").selectOption("object");
  assert.equal(await page.getByRole("group", { name: "Members of leaf" }).count(), 0);
  assert.equal(await page.getByRole("group", { name: `Members of o${deepest - 1}` }).count(), 1);

  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText("Saved as version 2.").waitFor();
  let level = (await request(`${app.url}/api/tools/${encodeURIComponent(id)}`, token)).body.tool.parameters[0];
  for (let depth = 1; depth < deepest - 2; depth++) level = level.properties[0];
  const [savedRows, last] = level.properties;
  assert.equal(savedRows.items.type, "object");
  assert.equal(last.properties[0].type, "object");
  await context.close();
});
