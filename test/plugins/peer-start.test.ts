/** A peer is bounded at start: no `initialize` answer in time, a bad answer or a garbage line fails its plugin with that reason. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createLogger } from "../../src/log.ts";
import { loadPlugins } from "../../src/plugins/loader.ts";
import type { PluginRegistry } from "../../src/plugins/registry.ts";
import { tempDir } from "../helpers/fixtures.ts";
import { writePythonPeer } from "../helpers/peers.ts";

describe("peer start", () => {
  let registry: PluginRegistry;
  let started: number;
  const lines: Array<Record<string, unknown>> = [];

  before(async () => {
    const root = tempDir();
    writePythonPeer(root, "mute", "mute", { name: "mute", body: "time.sleep(30)" });
    writePythonPeer(root, "liar", "liar", { name: "Not A Name!", body: "" });
    const garbage = path.join(root, "garbage", "bin", "garbage");
    fs.mkdirSync(path.dirname(garbage), { recursive: true });
    fs.writeFileSync(garbage, "#!/bin/sh\necho 'this is not json'\nsleep 30\n", { mode: 0o755 });
    writePythonPeer(root, "fine", "fine", { name: "fine", manifest: { version: "2.0.0", handlers: [{ handler: "ghost" }] }, body: "" });
    writePythonPeer(root, "ok", "ok", { name: "ok", manifest: { version: "1.0.0" }, body: 'sys.stderr.write("hello from stderr\\n"); sys.stderr.flush(); peer.log("a log notification", "warn")' });
    started = performance.now();
    registry = await loadPlugins({ root, runtimeVersion: "0.1.0", peerStartTimeoutMs: 5_000, logger: createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) }) });
  });
  after(() => registry.close());

  it("a peer that does not answer initialize in time fails its plugin with that reason, within the bound", () => {
    assert.match(registry.failed.find((f) => f.name === "mute")?.reason ?? "", /peer bin\/mute did not answer initialize within 5000 ms/);
    assert.ok(performance.now() - started < 20_000);
  });

  it("a bad initialize answer or a line that is not JSON fails the plugin naming why", () => {
    assert.match(registry.failed.find((f) => f.name === "liar")?.reason ?? "", /initialize: name must match/);
    assert.match(registry.failed.find((f) => f.name === "garbage")?.reason ?? "", /peer bin\/garbage/);
  });

  it("a declared handler no peer serves fails the plugin; a valid peer loads", () => {
    assert.match(registry.failed.find((f) => f.name === "fine")?.reason ?? "", /handler "ghost".*nor a function of its peers/);
    assert.deepEqual([...registry.loaded.keys()], ["ok"]);
    assert.equal(registry.loaded.get("ok")?.peers?.health()[0]?.state, "up");
  });

  it("a peer's stderr and log notifications go to the server log under the plugin's name", async () => {
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(lines.some((l) => l.plugin === "ok" && l.msg === "hello from stderr" && l.stream === "stderr"), JSON.stringify(lines));
    assert.ok(lines.some((l) => l.plugin === "ok" && l.msg === "a log notification" && l.level === "warn"));
  });
});
