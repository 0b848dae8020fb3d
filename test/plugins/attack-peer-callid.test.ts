/**
 * Attack: a peer asks the host to call another plugin as somebody else. The peer names only a
 * callId; the host accepts it only while that call is in flight *for that same peer*, and gates the
 * nested call as that call's user. A stolen id (another peer's live call) and an invented one fail.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { EXAMPLE_PLUGINS, request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { waitFor, writePythonPeer } from "../helpers/peers.ts";

describe("attack: peer callIds", () => {
  let t: TestApp;
  let drop: string;

  before(async () => {
    const root = tempDir();
    fs.cpSync(path.join(EXAMPLE_PLUGINS, "demo"), path.join(root, "demo"), { recursive: true });
    drop = path.join(tempDir(), "callid.txt");
    // alpha holds a call open (as the admin) and leaks its callId; beta tries to use it.
    writePythonPeer(root, "alpha", "alpha", {
      name: "alpha", manifest: { version: "1.0.0", handlers: [{ handler: "hold" }] },
      body: `
@peer.function
def hold(request, ctx):
    open(${JSON.stringify(drop)}, "w").write(ctx._call_id)
    time.sleep(3)
    return "held"
`,
    });
    writePythonPeer(root, "beta", "beta", {
      name: "beta", manifest: { version: "1.0.0", handlers: [{ handler: "steal" }, { handler: "invent" }] },
      body: `
from knot_peer import _Context
@peer.function
def steal(request, ctx):
    stolen = open(${JSON.stringify(drop)}).read()
    return _Context(peer, stolen).call("demo", "echo_word", {"word": "stolen"})
@peer.function
def invent(request, ctx):
    return _Context(peer, "00000000-0000-4000-8000-000000000000").call("demo", "echo_word", {"word": "x"})
`,
    });
    t = await startApp({ pluginsDir: root });
  });
  after(() => t.close());

  it("another peer's in-flight callId and an invented one are refused before any handler runs", async () => {
    const admin = (await t.userWithToken("root", { admin: true })).token;
    const nobody = (await t.userWithToken("nobody")).token;
    const held = request(`${t.url}/plugins/alpha/hold`, admin);
    await waitFor(() => fs.existsSync(drop) && fs.readFileSync(drop, "utf8").length > 0, 10_000, "alpha's callId");
    const stolen = await request(`${t.url}/plugins/beta/steal`, nobody);
    assert.equal(stolen.status, 403, JSON.stringify(stolen.body));
    assert.match(stolen.body.error, /callId is not a call in flight for this peer/);
    const invented = await request(`${t.url}/plugins/beta/invent`, nobody);
    assert.equal(invented.status, 403);
    assert.equal((await held).body, "held");
    // The same nested call with beta's own callId runs as beta's caller and is gated for them.
    assert.equal((await request(`${t.url}/plugins/demo/echo_word?word=x`, nobody)).status, 403);
  });
});
