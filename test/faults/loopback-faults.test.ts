/**
 * Fault: the loopback is slow or refused. A plugin handler slower than the run's wall deadline ends
 * the run by that deadline (not when the handler finishes); a loopback base that
 * refuses connections, resets them, answers garbage or a bare 500 is LOOPBACK_FAILED (catchable by
 * the tool); one that accepts and never answers ends by the wall deadline. Each time the server
 * goes on serving, and the slow handler's own call is still audited when it completes.
 */
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { DEFAULT_RUN_LIMITS } from "../../sandbox/index.ts";
import type { Principal } from "../../src/identity/principal.ts";
import { createToolRunner } from "../../src/tools/tool-runner.ts";
import { request, startApp, tempDir, type TestApp } from "../helpers/fixtures.ts";
import { writeFaultyPlugin } from "./faulty-plugin.ts";

const WALL_MS = 1_000;
const SLOW_MS = 2_500;
const CALL_OK = `import { call } from "knot:plugin";\nexport default async () => call("faulty", "ok");`;
const CALL_CAUGHT = `import { call } from "knot:plugin";
export default async () => { try { await call("faulty", "ok"); return "no error"; } catch (e) { return { code: e.code, message: e.message }; } };`;

/**
 * A run whose loopback call outlives the run ends by its wall deadline (TOOL_TIMEOUT): the
 * loopback request's own timeout has a grace past the run's deadline, so it never wins the race.
 */
function assertEndedByDeadline(error: { code: string; message: string } | null, _call: string): void {
  const ended = error ? `${error.code}: ${error.message}` : "ok";
  assert.ok(ended.startsWith("TOOL_TIMEOUT: "), ended);
}

describe("loopback faults", () => {
  let t: TestApp;
  let token: string;
  let principal: Principal;
  let fake: http.Server;
  let fakeBase: string;
  let closedBase: string;
  const fakeMode = { current: "hang" as "hang" | "reset" | "garbage" | "status500" };

  before(async () => {
    const root = tempDir();
    writeFaultyPlugin(root);
    t = await startApp({ pluginsDir: root, config: { handlerTimeoutMs: 10_000, limits: { ...DEFAULT_RUN_LIMITS, wallMs: WALL_MS } } });
    const { user, token: secret } = await t.userWithToken("dana", { grants: ["knot.tools.author"] });
    token = secret;
    principal = (await t.app.auth.principalFor(user.id))!;
    fake = http.createServer((req, res) => {
      if (fakeMode.current === "reset") return req.socket.destroy();
      if (fakeMode.current === "garbage") return res.writeHead(200, { "content-type": "application/json" }).end("{not json");
      if (fakeMode.current === "status500") return res.writeHead(500, { "content-type": "text/plain" }).end("boom");
      // "hang": accept, never answer.
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    fakeBase = `http://127.0.0.1:${(fake.address() as net.AddressInfo).port}`;
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    closedBase = `http://127.0.0.1:${(closed.address() as net.AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await stillServing(); // the sandbox worker is up: timings below measure runs, not its start
  });
  after(async () => {
    fake.closeAllConnections();
    await new Promise<void>((resolve) => fake.close(() => resolve()));
    await t.close();
  });

  const runDraft = (code: string) => request(`${t.url}/api/tools/run`, token, { method: "POST", body: JSON.stringify({ code }) });
  const stillServing = async () => {
    const res = await runDraft(CALL_OK);
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    assert.deepEqual(res.body.result, { fine: true, by: "dana" });
  };
  /** The app's own sandbox and credentials, but a loopback base chosen by the test. */
  const runnerAt = (base: string) => createToolRunner({
    sandbox: t.app.sandbox, catalog: t.app.catalog, registry: t.app.pool.registry, loopbackTokens: t.app.loopbackTokens,
    limits: t.app.config.limits, loopbackBase: () => base, tokenTtlMs: 60_000,
  });

  it("a handler slower than the run's wall deadline: the run ends by the deadline; the handler's call is still audited", async () => {
    const started = performance.now();
    const res = await runDraft(`import { call } from "knot:plugin";\nexport default async () => call("faulty", "slow", { ms: ${SLOW_MS} });`);
    const took = performance.now() - started;
    assert.equal(res.status, 200);
    assertEndedByDeadline(res.body.error, "faulty/slow");
    assert.ok(took < SLOW_MS, `ended after ${took.toFixed(0)} ms`);
    await stillServing();
    let rows = await t.app.store.queryAudit({ tool: "faulty/slow" });
    for (const until = Date.now() + SLOW_MS + 2_000; rows.length === 0 && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await t.app.store.queryAudit({ tool: "faulty/slow" });
    }
    assert.deepEqual(rows.map((r) => [r.surface, r.outcome]), [["loopback", "ok"]]);
  });

  it("a loopback base that refuses connections: LOOPBACK_FAILED, and the tool can catch it", async () => {
    const runner = runnerAt(closedBase);
    const outcome = await runner.run(principal, { name: "refused", code: CALL_OK, language: "js" }, {});
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.error.code, "LOOPBACK_FAILED");
    assert.match(!outcome.ok ? outcome.error.message : "", /faulty\/ok: the loopback request failed \(ECONNREFUSED\)/);
    const caught = await runner.run(principal, { name: "refused_caught", code: CALL_CAUGHT, language: "js" }, {});
    assert.equal(caught.ok, true);
    assert.equal(caught.ok && caught.result.kind === "json" && (caught.result.value as { code: string }).code, "LOOPBACK_FAILED");
    await stillServing();
  });

  for (const [mode, message] of [["reset", /the loopback request failed/], ["garbage", /not valid JSON/], ["status500", /failed with HTTP 500/]] as const) {
    it(`a loopback base that ${mode === "reset" ? "resets the connection" : mode === "garbage" ? "answers broken JSON" : "answers a bare 500"}: LOOPBACK_FAILED`, async () => {
      fakeMode.current = mode;
      const outcome = await runnerAt(fakeBase).run(principal, { name: mode, code: CALL_OK, language: "js" }, {});
      assert.equal(!outcome.ok && outcome.error.code, "LOOPBACK_FAILED", JSON.stringify(outcome));
      assert.match(!outcome.ok ? outcome.error.message : "", message);
      await stillServing();
    });
  }

  it("a loopback base that accepts and never answers: the run ends at its wall deadline", async () => {
    fakeMode.current = "hang";
    const started = performance.now();
    const outcome = await runnerAt(fakeBase).run(principal, { name: "hung", code: CALL_OK, language: "js" }, {});
    const took = performance.now() - started;
    assertEndedByDeadline(outcome.ok ? null : outcome.error, "faulty/ok");
    assert.ok(took < WALL_MS + 2_000, `ended after ${took.toFixed(0)} ms`);
    assert.equal(t.app.sandbox.stats().busy, 0, "the run left the sandbox");
    await stillServing();
  });
});
