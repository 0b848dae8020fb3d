/**
 * A peer that closes its stdout but keeps running can answer nothing: it is stopped and restarted
 * like a peer that exited, instead of failing every call for as long as the process lives.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, it } from "node:test";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { waitFor, writePythonPeer } from "../helpers/peers.ts";

let t: TestApp;
let admin: string;
before(async () => {
  const root = tempDir();
  const marker = path.join(tempDir(), "closed-once");
  writePythonPeer(root, "mute", "mute", {
    name: "mute",
    manifest: { version: "1.0.0", handlers: [{ handler: "hush" }, { handler: "hello" }] },
    body: `
@peer.function
def hush(request, ctx):
    # The first time only: close stdout and keep running, answering nothing ever again.
    if not os.path.exists(${JSON.stringify(marker)}):
        open(${JSON.stringify(marker)}, "w").close()
        sys.stdout.flush()
        os.close(1)
        time.sleep(600)
    return "spoke"
@peer.function
def hello(request, ctx):
    return "hello"
`,
  });
  t = await startApp({ pluginsDir: root });
  admin = (await t.userWithToken("root", { admin: true })).token;
});
after(() => t.close());

it("a peer whose stdout closed while it runs is restarted, and answers again", async () => {
  const hushed = await request(`${t.url}/plugins/mute/hush`, admin);
  assert.equal(hushed.status, 503, JSON.stringify(hushed.body));
  const health = async () => (await request(`${t.url}/api/plugins`, admin)).body.loaded.find((p: { name: string }) => p.name === "mute").peers[0];
  // Before its process is gone (it is killed after a grace second), a call gets the same 503, not an
  // internal error from the closed pipe, and its health already says it is restarting.
  const meanwhile = await request(`${t.url}/plugins/mute/hello`, admin);
  assert.equal(meanwhile.status, 503, JSON.stringify(meanwhile.body));
  assert.equal(meanwhile.body.code, "PLUGIN_UNAVAILABLE");
  assert.equal((await health()).state, "restarting");
  await waitFor(async () => (await health()).restarts >= 1 && (await health()).state === "up", 15_000, "the peer to be restarted");
  assert.match((await health()).lastError, /stdout closed/);
  const hello = await request(`${t.url}/plugins/mute/hello`, admin);
  assert.equal(hello.status, 200, JSON.stringify(hello.body));
  assert.equal(hello.body, "hello");
});
