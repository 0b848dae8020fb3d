/**
 * Attack family: starving another user through their sinks (found by an attacker probe). Alice has
 * a sink on `tool.run` and a tool shared with everyone. Mallory runs that tool as fast as her own
 * quota allows; each run told alice's sink, whose runs counted against alice's run quota, so alice's
 * own runs were refused (RATE_LIMITED) for as long as mallory kept going. Guarantee: a user's sinks
 * run on a quota of their own (the same limits as the user's), so events others cause can delay the
 * sinks' deliveries (they are retried) but never the user's own runs.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_QUOTAS } from "../../src/tools/quotas.ts";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";
import { waitFor } from "../helpers/peers.ts";

const AUTHOR = "knot.tools.author";
const RUNS_PER_MINUTE = 6;

describe("a user's sinks cannot use up the user's own run quota", () => {
  let t: TestApp;
  let alice: string, mallory: string;
  let shared: string, own: string, sink: string;
  const save = async (token: string, body: Record<string, unknown>) => {
    const res = await request(`${t.url}/api/tools`, token, { method: "POST", body: JSON.stringify(body) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.tool.id as string;
  };
  const run = (token: string, id: string) => request(`${t.url}/api/tools/${id}/run`, token, { method: "POST", body: JSON.stringify({ args: {} }) });

  before(async () => {
    t = await startApp({ config: {
      quotas: { ...DEFAULT_QUOTAS, userRunsPerMinute: RUNS_PER_MINUTE },
      sinks: { maxAttempts: 20, backoffMs: 50, maxBackoffMs: 200, pollMs: 50, retentionDays: 30 },
    } });
    alice = (await t.userWithToken("alice", { grants: [AUTHOR] })).token;
    mallory = (await t.userWithToken("mallory", { grants: [AUTHOR] })).token;
    shared = await save(alice, { name: "shared_ping", code: 'export default () => "pong"', sharing: "everyone" });
    own = await save(alice, { name: "own_ping", code: 'export default () => "mine"' });
    sink = await save(alice, { name: "on_run", kind: "sink", events: ["tool.run"], code: "export default () => {}" });
  });
  after(() => t.close());

  it("mallory's runs of alice's shared tool leave alice's own quota whole", async () => {
    for (let i = 0; i < RUNS_PER_MINUTE; i++) assert.equal((await run(mallory, shared)).body.result, "pong", `mallory's run ${i}`);
    assert.equal((await run(mallory, shared)).status, 429, "mallory's own quota holds");
    // Alice's sink hears of every run (delivered, or retried when its own quota is out).
    const deliveries = async () => (await request(`${t.url}/api/sinks/${sink}/deliveries`, alice)).body.deliveries as Array<{ status: string }>;
    await waitFor(async () => (await deliveries()).length >= RUNS_PER_MINUTE, 10_000, "the sink was told of every run");
    await waitFor(async () => (await deliveries()).filter((d) => d.status === "delivered").length >= RUNS_PER_MINUTE - 1, 10_000, "the sink's runs happened");
    for (let i = 0; i < RUNS_PER_MINUTE - 1; i++) {
      const mine = await run(alice, own);
      assert.equal(mine.status, 200, `alice's own run ${i}: ${JSON.stringify(mine.body)}`);
      assert.equal(mine.body.result, "mine");
    }
  });
});
