/**
 * SIGTERM during a user tool run: the server refuses new work at once, lets the run finish (its
 * later loopback calls still reach their handler), answers it in full, exits 0, and the run's audit
 * row and its loopback rows are in the database, whose audit chain verifies.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import path from "node:path";
import { it } from "node:test";
import { hashSecret, mintSecret } from "../../src/auth/secrets.ts";
import { configFromToml, DEFAULT_CONFIG } from "../../src/config.ts";
import { openStore } from "../../src/store/index.ts";
import { cli, cliDaemon } from "../helpers/cli.ts";
import { tempDir } from "../helpers/fixtures.ts";
import { startTracedApp, writeTracePlugin } from "../metrics/helpers.ts";

// Two loopback calls of 700 ms each: SIGTERM arrives during the first, the second starts while draining.
const SLOW_TOOL = `import { call } from "knot:plugin";
export default async () => {
  const first = await call("trace", "slow", { ms: 700 });
  const second = await call("trace", "slow", { ms: 700 });
  return { done: true, slept: first.slept + second.slept };
};`;

it("SIGTERM lets the running call finish, refuses new ones, exits 0 and loses no audit row", async () => {
  const dir = tempDir();
  const db = path.join(dir, "graceful.db");
  const plugins = path.join(dir, "plugins");
  writeTracePlugin(plugins);
  const token = await seedWriter(db);
  const server = cliDaemon(["serve", "--port", "0", "--db", db, "--plugins", plugins], /listening on (http:\/\/\S+)/, { cwd: dir });
  const url = /listening on (http:\/\/\S+)/.exec(await server.started)![1]!;
  const exited = once(server.child, "exit") as Promise<[number | null, string | null]>;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const run = (code: string) => fetch(`${url}/api/tools/run`, { method: "POST", headers, body: JSON.stringify({ name: "slow_run", code }) });

  try {
    assert.equal(((await (await run("export default () => 1;")).json()) as { ok: boolean }).ok, true, "warm-up run");
    const started = performance.now();
    const slow = run(SLOW_TOOL);
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 150));

    const refused = await fetch(`${url}/api/tools`, { headers }).then(
      async (res) => ({ status: res.status, code: ((await res.json()) as { code?: string }).code }),
      () => ({ status: 0, code: "ECONNREFUSED" }),
    );
    assert.ok(refused.status === 0 || (refused.status === 503 && refused.code === "SHUTTING_DOWN"), `new work is refused: ${JSON.stringify(refused)}`);

    const response = await slow;
    assert.equal(response.status, 200);
    const body = (await response.json()) as { ok: boolean; result?: unknown; error?: unknown };
    assert.equal(body.ok, true, JSON.stringify(body));
    assert.deepEqual(body.result, { done: true, slept: 1400 });
    assert.ok(performance.now() - started >= 1_400, "the run was not cut short");

    const [code, signal] = await exited;
    assert.equal(signal, null);
    assert.equal(code, 0, server.output().stderr);
    assert.match(server.output().stdout, /shutting down \(SIGTERM\)/);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
  }

  const store = await openStore({ path: db });
  try {
    const rows = await store.queryAudit({ limit: 100 });
    const runRows = rows.filter((r) => r.tool === "draft:slow_run" && r.outcome === "ok");
    assert.equal(runRows.length, 2, "the warm-up and the slow run are both audited");
    const slowCalls = rows.filter((r) => r.tool === "trace/slow" && r.surface === "loopback" && r.outcome === "ok");
    assert.equal(slowCalls.length, 2, "both loopback calls, the one made while draining included");
  } finally {
    await store.close();
  }
  const verify = cli(["audit", "verify", "--db", db]);
  assert.equal(verify.code, 0, verify.stderr + verify.stdout);
});

it("past the grace deadline the calls still running are stopped, and their audit rows are still written", async () => {
  // The handler deadline only bounds how long the stuck handler outlives the test.
  const t = await startTracedApp({ shutdownGraceMs: 300, handlerTimeoutMs: 2_000 });
  const writer = await t.userWithToken("writer", { grants: ["knot.tools.author"] });
  const db = t.app.config.database;
  const stuck = fetch(`${t.url}/api/tools/run`, {
    method: "POST", headers: { authorization: `Bearer ${writer.token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "stuck", code: `import { call } from "knot:plugin";\nexport default () => call("trace", "slow", { ms: 8000 });` }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as { error?: unknown } }), () => "connection closed" as const);
  while (t.app.sandbox.stats().busy === 0) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200));
  const started = performance.now();
  const closed = t.app.close();
  assert.equal(t.app.close(), closed, "close() is idempotent");
  const during = await fetch(`${t.url}/healthz`).then(async (res) => ({ status: res.status, code: ((await res.json()) as { code?: string }).code }));
  assert.deepEqual(during, { status: 503, code: "SHUTTING_DOWN" });
  await closed;
  assert.ok(performance.now() - started < 6_000, "the deadline, not the 8 s handler, decided when to stop");
  // The run is stopped before the connections close, so its caller is told why.
  const answer = await stuck;
  assert.ok(answer !== "connection closed", "the caller is answered before its connection closes");
  assert.deepEqual(answer.body.error, { code: "CANCELLED", message: "the run was stopped: the sandbox shut down (the server is stopping) before it finished" });
  assert.ok(t.lines.some((line) => line.msg === "shutdown deadline reached: stopping the calls still running"));
  const store = await openStore({ path: db });
  try {
    const row = (await store.queryAudit({ tool: "draft:stuck", limit: 5 }))[0];
    assert.equal(row?.outcome, "CANCELLED", "the stopped run is audited before the store closes");
  } finally {
    await store.close();
  }
});

it("the grace period and the log level come from [server] in the config", () => {
  assert.equal(DEFAULT_CONFIG.shutdownGraceMs, 10_000);
  const config = configFromToml({ server: { shutdown_grace_ms: 2_500, log_level: "debug" } }, "/");
  assert.equal(config.shutdownGraceMs, 2_500);
  assert.equal(config.logLevel, "debug");
  assert.throws(() => configFromToml({ server: { log_level: "verbose" } }, "/"), { code: "CONFIG_INVALID" });
  assert.throws(() => configFromToml({ server: { shutdown_grace_ms: "soon" } }, "/"), { code: "CONFIG_INVALID" });
});

/** A user allowed to run drafts, and its token (set up in process: faster than three CLI runs). */
async function seedWriter(db: string): Promise<string> {
  const store = await openStore({ path: db });
  try {
    const user = await store.createUser({ name: "writer", isAdmin: false });
    await store.grant({ subject: { kind: "user", userId: user.id }, permission: "knot.tools.author" });
    const token = mintSecret("kt_");
    await store.createToken({ userId: user.id, name: "test", secretHash: hashSecret(token), scopes: null, expiresAt: null });
    return token;
  } finally {
    await store.close();
  }
}
