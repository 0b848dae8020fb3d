/**
 * Fault: many sandboxes hit their memory limit at once. User A fires waves of 8 concurrent memory
 * bombs (its whole per-user concurrency quota, raised to 8 here) over MCP while user B keeps calling a user tool and
 * a plugin tool: every bomb ends with MEMORY_LIMIT, every one of B's calls succeeds with the right
 * answer, the sandbox keeps its workers, and the audit log holds every call.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEFAULT_RUN_LIMITS } from "../../sandbox/index.ts";
import { DEFAULT_QUOTAS } from "../../src/tools/quotas.ts";
import { startApp, type TestApp } from "../helpers/fixtures.ts";
import { connect, saveUserTool, USER_TOOLS } from "../mcp/helpers.ts";

const ERROR_META = "knot-tools/errorCode";
const BOMB = `export default function () { const keep = []; for (let i = 0;; i++) keep.push(new Array(1e4).fill(i + 0.5)); }`;
const WAVES = 2;
const PER_WAVE = 8;

let t: TestApp;
let a: Client;
let b: Client;

before(async () => {
  t = await startApp({
    config: {
      sandbox: { workers: 2, runsPerWorker: 6, workerMemoryMb: 512 },
      limits: { ...DEFAULT_RUN_LIMITS, heapMb: 16, wallMs: 10_000 },
      quotas: { ...DEFAULT_QUOTAS, userConcurrentRuns: 8, tokenConcurrentRuns: 8 },
    },
  });
  const userA = await t.userWithToken("attacker", { grants: ["knot.mcp"] });
  const userB = await t.userWithToken("bystander", { grants: ["knot.mcp"] });
  await saveUserTool(t, userA.user.id, { name: "bomb", code: BOMB });
  await saveUserTool(t, userB.user.id, { name: "b_echo", code: USER_TOOLS.echo, parameters: [{ name: "text", type: "string", required: true }] });
  a = (await connect(t.url, userA.token)).client;
  b = (await connect(t.url, userB.token)).client;
});
after(async () => {
  await Promise.all([a.close(), b.close()]);
  await t.close();
});

it("8 concurrent memory bombs from one user end with MEMORY_LIMIT while another user's calls keep succeeding", async () => {
  let bombing = true;
  const bombs = (async () => {
    const codes: unknown[] = [];
    for (let wave = 0; wave < WAVES; wave += 1) {
      const results = await Promise.all(Array.from({ length: PER_WAVE }, () => a.callTool({ name: "bomb", arguments: {} })));
      codes.push(...results.map((r) => (r.isError ? (r._meta as Record<string, unknown>)[ERROR_META] : "no error")));
    }
    bombing = false;
    return codes;
  })();

  const failures: string[] = [];
  let bystanderCalls = 0;
  while (bombing || bystanderCalls < 6) {
    const i = bystanderCalls;
    const [user, plugin] = await Promise.all([
      b.callTool({ name: "b_echo", arguments: { text: `t${i}` } }),
      b.callTool({ name: "echo_word", arguments: { word: `w${i}` } }),
    ]);
    if (JSON.stringify(user.structuredContent) !== JSON.stringify({ echo: `t${i}`, summary: "echoed" })) failures.push(`user tool: ${JSON.stringify(user)}`);
    if ((plugin.structuredContent as { word?: string } | undefined)?.word !== `w${i}`) failures.push(`plugin tool: ${JSON.stringify(plugin)}`);
    bystanderCalls += 1;
  }

  assert.deepEqual(await bombs, Array(WAVES * PER_WAVE).fill("MEMORY_LIMIT"));
  assert.deepEqual(failures, []);
  assert.ok(bystanderCalls >= 6);
  const stats = t.app.sandbox.stats();
  assert.equal(stats.workers, 2, JSON.stringify(stats));
  assert.equal(stats.busy, 0);
  const bombRows = await t.app.store.queryAudit({ tool: "user:attacker/bomb", limit: 100 });
  assert.deepEqual(bombRows.map((r) => r.outcome), Array(WAVES * PER_WAVE).fill("MEMORY_LIMIT"));
  const echoRows = await t.app.store.queryAudit({ tool: "user:bystander/b_echo", limit: 1000 });
  assert.equal(echoRows.length, bystanderCalls);
  assert.ok(echoRows.every((r) => r.outcome === "ok"));
});
