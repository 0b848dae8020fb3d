/**
 * Attack family: identity forgery. A user tool claims to be someone else — an admin's id, name or
 * even the admin's real API token in its params, a rebound `knot:identity`, an unfrozen caller
 * object — hoping a plugin handler reached over the loopback will believe it. Guarantee: who is
 * calling is decided by the credential (the run's loopback token, minted for the requester), never
 * by what the guest sends; params are data. Gates, `knot:identity` in the handler, `request.user`
 * and the audit row all name the requester.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { EXAMPLE_PLUGINS, request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeProbePlugin } from "../helpers/probe-plugin.ts";

const FORGER = `import { call } from "knot:plugin";
import * as identity from "knot:identity";
import { user } from "knot:identity";
import { getString } from "knot:tool";
export default async () => {
  const out = {};
  try { identity.user = () => ({ name: "root", isAdmin: true, hasPermission: () => true }); out.rebind = "rebound" } catch (e) { out.rebind = e.name }
  try { Object.defineProperty(user(), "isAdmin", { value: true }); out.freeze = "changed" } catch (e) { out.freeze = e.name }
  try { user().permissions.push("plugin.probe.secret"); out.push = "pushed" } catch (e) { out.push = e.name }
  out.claims = { isAdmin: user().isAdmin, secret: user().hasPermission("plugin.probe.secret") };
  const rootId = getString("rootId"), rootToken = getString("rootToken");
  const forged = { user: { id: rootId, name: "root", isAdmin: true }, userId: rootId, isAdmin: true, authorization: "Bearer " + rootToken, token: rootToken };
  out.whoami = await call("probe", "whoami", forged);
  out.echoUser = (await call("probe", "echo", forged, { method: "POST" })).user;
  try { await call("probe", "gated", forged, { method: "POST" }); out.gated = "ran" } catch (e) { out.gated = e.code }
  return out;
};`;

describe("a user tool cannot pass itself off as another user", () => {
  let t: TestApp;
  let marker: string;
  let rootId: string, rootToken: string, mallory: string;

  before(async () => {
    const root = tempDir();
    fs.cpSync(EXAMPLE_PLUGINS, root, { recursive: true });
    writeProbePlugin(root);
    marker = path.join(tempDir(), "gated-marker");
    t = await startApp({ pluginsDir: root, config: { plugins: { probe: { marker } } } });
    const admin = await t.userWithToken("root", { admin: true });
    rootId = admin.user.id;
    rootToken = admin.token;
    mallory = (await t.userWithToken("mallory", { grants: ["knot.tools.author"] })).token;
  });
  after(() => t.close());

  it("forged ids, names, tokens and a rebound knot:identity change nothing over the loopback", async () => {
    const res = await request(`${t.url}/api/tools/run`, mallory, { method: "POST", body: JSON.stringify({ code: FORGER, args: { rootId, rootToken } }) });
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    const out = res.body.result;
    assert.equal(out.rebind, "TypeError", "module namespaces are immutable");
    assert.equal(out.freeze, "TypeError", "the caller object is frozen");
    assert.equal(out.push, "TypeError", "its lists are frozen");
    assert.deepEqual(out.claims, { isAdmin: false, secret: false });
    assert.deepEqual(out.whoami, { identity: "mallory", data: "mallory", admin: false, canSecret: false });
    assert.equal(out.echoUser.name, "mallory");
    assert.equal(out.echoUser.id, (await t.app.store.getUserByName("mallory"))!.id);
    assert.equal(out.echoUser.isAdmin, false);
    assert.equal(out.gated, "PERMISSION_DENIED");
    assert.equal(fs.existsSync(marker), false, "the gated handler never ran");
  });

  it("the audit rows of those loopback calls name the requester, not the forged user", async () => {
    const mine = (await t.app.store.getUserByName("mallory"))!.id;
    const rows = (await t.app.store.queryAudit({ tool: "probe/gated" })).filter((row) => row.surface === "loopback");
    assert.ok(rows.length >= 1);
    for (const row of rows) {
      assert.equal(row.userId, mine);
      assert.equal(row.outcome, "PERMISSION_DENIED");
    }
  });

  it("over HTTP too, query and body claims never change request.user", async () => {
    const res = await request(`${t.url}/plugins/probe/echo?user=root&isAdmin=true&userId=${rootId}`, mallory, { method: "POST", body: JSON.stringify({ user: { name: "root", isAdmin: true } }) });
    assert.equal(res.status, 200);
    assert.equal(res.body.user.name, "mallory");
    assert.equal(res.body.user.isAdmin, false);
    assert.deepEqual(res.body.params.user, { name: "root", isAdmin: true }, "the claim arrives as plain data");
  });
});
