/**
 * A real third-party client: Python `mcp` 2.3.0, installed from the configured Python package
 * index into a virtualenv (cached under the temp dir), lists and calls a plugin tool and a user
 * tool over 2026-07-28, without falling back to the initialize handshake. Skips only when no
 * python3 is on the PATH.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { startApp, tempDir } from "../helpers/fixtures.ts";
import { CONFORMANCE_PLUGIN } from "./conformance-harness.ts";
import { saveUserTool, USER_TOOLS } from "./helpers.ts";

const run = promisify(execFile);
const PYTHON = spawnSync("python3", ["--version"]).status === 0 ? "python3" : null;
const VENV = path.join(os.tmpdir(), "knot-tools-python-mcp-2.3.0");
const SCRIPT = path.resolve(import.meta.dirname, "python/list_and_call.py");

/** The virtualenv's python with mcp 2.3.0 (installed once; an async install keeps the event loop free). */
async function pythonWithMcp(): Promise<string> {
  const python = path.join(VENV, "bin", "python");
  const has = await run(python, ["-c", "import importlib.metadata as m; assert m.version('mcp') == '2.3.0'"]).then(() => true, () => false);
  if (has) return python;
  fs.rmSync(VENV, { recursive: true, force: true });
  await run(PYTHON!, ["-m", "venv", VENV]);
  // One retry per request, not pip's five with back-off: where the default index is unreachable and a
  // configured extra index serves (as on CI), the five made this install take ~230 s instead of ~12.
  await run(path.join(VENV, "bin", "pip"), ["install", "--quiet", "--retries", "1", "mcp==2.3.0"], { timeout: 600_000 });
  return python;
}

test("Python mcp 2.3.0 lists and calls a plugin tool and a user tool over 2026-07-28, no handshake", { skip: PYTHON ? false : "python3 is not installed", timeout: 900_000 }, async () => {
  const python = await pythonWithMcp();
  const plugins = tempDir("knot-python-plugins-");
  fs.cpSync(CONFORMANCE_PLUGIN, path.join(plugins, "conformance"), { recursive: true });
  const t = await startApp({ pluginsDir: plugins });
  try {
    const alice = await t.userWithToken("alice", { grants: ["knot.mcp"] });
    await saveUserTool(t, alice.user.id, { name: "u_echo", code: USER_TOOLS.echo, parameters: [{ name: "text", type: "string", required: true }] });
    const methods: string[] = [];
    t.app.server.prependListener("request", (req) => void methods.push(String(req.headers["mcp-method"] ?? req.method)));
    const { stdout } = await run(python, [SCRIPT, `${t.url}/mcp`, alice.token, "test_simple_text", "u_echo"], { timeout: 120_000 });
    const seen = JSON.parse(stdout.trim().split("\n").at(-1)!);
    assert.equal(seen.protocolVersion, "2026-07-28");
    assert.ok(seen.tools.includes("u_echo") && seen.tools.includes("test_simple_text"));
    assert.deepEqual(seen.plugin, ["This is a simple text response for testing."]);
    assert.deepEqual(seen.user, { echo: "from python", summary: "echoed" });
    assert.equal(seen.userError, false);
    assert.equal(methods[0], "server/discover");
    assert.ok(!methods.includes("initialize"), `no fallback to the handshake: ${methods.join(", ")}`);
    assert.equal(t.app.mcp.sessions.size, 0, "no 2025 session was opened");
  } finally {
    await t.close();
  }
});
