/**
 * A running peer that writes a line that is not JSON-RPC has broken the protocol: whatever it says
 * next cannot be trusted. Its calls fail with 503 PLUGIN_UNAVAILABLE (never a hang or a 500), it is
 * killed and restarted, its health names the violation, and it answers again.
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
  const marker = path.join(tempDir(), "babbled-once");
  writePythonPeer(root, "babbler", "babbler", {
    name: "babbler",
    manifest: { version: "1.0.0", handlers: [{ handler: "babble" }, { handler: "hello" }] },
    body: `
@peer.function
def babble(request, ctx):
    # The first time only: a line that is not JSON-RPC, then no answer.
    if not os.path.exists(${JSON.stringify(marker)}):
        open(${JSON.stringify(marker)}, "w").close()
        sys.stdout.write("this is not json-rpc\\n")
        sys.stdout.flush()
        time.sleep(600)
    return "babbled"
@peer.function
def hello(request, ctx):
    return "hello"
`,
  });
  t = await startApp({ pluginsDir: root });
  admin = (await t.userWithToken("root", { admin: true })).token;
});
after(() => t.close());

it("a running peer that breaks the protocol fails its calls with 503, is restarted, and answers again", async () => {
  const babbled = await request(`${t.url}/plugins/babbler/babble`, admin);
  assert.equal(babbled.status, 503, JSON.stringify(babbled.body));
  assert.equal(babbled.body.code, "PLUGIN_UNAVAILABLE");
  const health = async () => (await request(`${t.url}/api/plugins`, admin)).body.loaded.find((p: { name: string }) => p.name === "babbler").peers[0];
  await waitFor(async () => (await health()).restarts >= 1 && (await health()).state === "up", 15_000, "the peer to be restarted");
  assert.match((await health()).lastError, /the peer sent/);
  const hello = await request(`${t.url}/plugins/babbler/hello`, admin);
  assert.equal(hello.status, 200, JSON.stringify(hello.body));
  assert.equal(hello.body, "hello");
});
