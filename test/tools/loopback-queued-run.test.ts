/**
 * A run's loopback token lives for the run's wall time (plus `loopback_token_ttl_ms`) from when the
 * run is dispatched to a worker, not from when it was queued: a run that waited in its user's line
 * behind another must still reach the plugins it may call.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DEFAULT_CONFIG } from "../../src/config.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

const VIEW = "plugin.demo.view_dashboard";
const busy = (ms: number) => `const until = Date.now() + ${ms}; while (Date.now() < until) {}`;
const HOLD = `export default () => { ${busy(1_500)} return "held"; };\n`;
const LATE_CALL = `import { Widgets } from "plugin:demo";\nexport default async () => { ${busy(900)} return await new Widgets().echo("late"); };\n`;

let t: TestApp;
let token: string;
let userId: string;
let tools: readonly [string, string];
before(async () => {
  t = await startApp({
    config: {
      loopbackTokenTtlMs: 50,
      limits: { ...DEFAULT_CONFIG.limits, wallMs: 2_000, cpuMs: 2_000 },
      sandbox: { workers: 1, runsPerWorker: 4, workerMemoryMb: 512, userRunsInFlight: 1 },
    },
  });
  const made = await t.userWithToken("queued", { grants: ["knot.tools.author", VIEW] });
  ({ token } = made);
  userId = made.user.id;
  tools = [await save("hold", HOLD), await save("late_call", LATE_CALL)];
});
after(() => t.close());

const run = (id: string) => request(`${t.url}/api/tools/${id}/run`, token, { method: "POST", body: JSON.stringify({ args: {} }) });

async function save(name: string, code: string): Promise<string> {
  const res = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify({ name, code }) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.tool.id;
}


test("a run queued behind its user's other run still has a live loopback token when it calls a plugin", async () => {
  const [hold, late] = tools;
  // One run in flight per user: late_call waits ~1.4 s for hold, then calls 0.9 s into its own run,
  // past 2.05 s (wall + ttl) after it was queued but well within that from its dispatch.
  const holding = run(hold);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const [held, called] = await Promise.all([holding, run(late)]);
  assert.equal(held.body.ok, true, JSON.stringify(held.body));
  assert.equal(called.body.ok, true, JSON.stringify(called.body));
  assert.deepEqual(called.body.result.word, "late");
});

test("a grant revoked while a run waits in the queue is gone when the run calls the plugin", async () => {
  const [hold, late] = tools;
  const holding = run(hold);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const calling = run(late);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // late_call is queued (its loopback principal was taken then); the grant goes before it starts.
  assert.equal(await t.app.store.revoke({ subject: { kind: "user", userId }, permission: VIEW }), true);
  const [held, called] = await Promise.all([holding, calling]);
  assert.equal(held.body.ok, true, JSON.stringify(held.body));
  assert.equal(called.body.ok, false, JSON.stringify(called.body));
  assert.equal(called.body.error.code, "PERMISSION_DENIED", JSON.stringify(called.body));
});

test("the same holds for a run that waited for its quota slot rather than in the sandbox's line", async () => {
  const q = await startApp({
    config: {
      limits: { ...DEFAULT_CONFIG.limits, wallMs: 2_000, cpuMs: 2_000 },
      quotas: { ...DEFAULT_CONFIG.quotas, maxConcurrentRuns: 1 },
    },
  });
  try {
    const made = await q.userWithToken("waiter", { grants: ["knot.tools.author", VIEW] });
    const saveHere = async (name: string, code: string) =>
      (await request(`${q.url}/api/tools`, made.token, { method: "POST", body: JSON.stringify({ name, code }) })).body.tool.id as string;
    const [hold, late] = [await saveHere("hold", HOLD), await saveHere("late_call", LATE_CALL)];
    const runHere = (id: string) => request(`${q.url}/api/tools/${id}/run`, made.token, { method: "POST", body: JSON.stringify({ args: {} }) });
    const holding = runHere(hold);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const calling = runHere(late); // waits for the one global run slot
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await q.app.store.revoke({ subject: { kind: "user", userId: made.user.id }, permission: VIEW }), true);
    const [, called] = await Promise.all([holding, calling]);
    assert.equal(called.body.error?.code, "PERMISSION_DENIED", JSON.stringify(called.body));
  } finally {
    await q.close();
  }
});
