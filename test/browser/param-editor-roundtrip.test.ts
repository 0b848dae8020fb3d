/**
 * The parameter editor keeps what it does not show: a tool saved through the API with parts the
 * editor cannot edit (an item type's enum, description and `personal`, a list of lists, an object's
 * enum) keeps every one of them when another parameter is edited and the tool saved in the editor;
 * the items' `personal` (masked in the audit log) is shown as a checkbox.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Browser } from "playwright-core";
import { request, type TestApp } from "../helpers/fixtures.ts";
import { browserSuite, signIn } from "./browser-helpers.ts";

let app: TestApp;
let browser: Browser;

browserSuite((started, launched) => {
  app = started;
  browser = launched;
});

const PARAMETERS = [
  { name: "note", type: "string" },
  { name: "emails", type: "list", items: { type: "string", description: "An address", enum: ["a@example.com", "b@example.com"], personal: true } },
  { name: "grid", type: "list", items: { type: "list", description: "A row", items: { type: "int", enum: [0, 1] } } },
  { name: "flag", type: "bool", enum: [true] },
  { name: "point", type: "object", enum: [{ x: 1 }], properties: [{ name: "x", type: "int" }] },
];

test("editing one parameter in the editor keeps every field of the others", async () => {
  const token = (await app.userWithToken("ola", { grants: ["knot.tools.author"] })).token;
  const created = await request(`${app.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name: "mailer", code: "export default () => 1;\n", parameters: PARAMETERS }) });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id: string = created.body.tool.id;
  const before = created.body.tool.parameters;

  const { context, page } = await signIn(browser, app, token);
  await page.goto(`/#/tools/${encodeURIComponent(id)}`);
  await page.getByRole("tab", { name: "Parameters" }).click();
  assert.equal(await page.locator('fieldset[data-param="emails"]').getByRole("checkbox", { name: "Items personal" }).isChecked(), true);
  await page.locator("fieldset.param-row").first().getByLabel("Description").first().fill("What to say.");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByText("Saved as version 2.").waitFor();

  const after = (await request(`${app.url}/api/tools/${encodeURIComponent(id)}`, token)).body.tool.parameters;
  assert.deepEqual(after, [{ ...before[0], description: "What to say." }, ...before.slice(1)]);
  assert.equal(after[1].items.personal, true);
  await context.close();
});
