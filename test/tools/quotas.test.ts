import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KnotError } from "../../src/errors.ts";
import type { Principal } from "../../src/identity/principal.ts";
import { createQuotas, DEFAULT_QUOTAS } from "../../src/tools/quotas.ts";

const principal = (id: string, tokenId: string | null = null): Principal => ({
  user: { id, name: id, isAdmin: false, createdAt: "" }, groups: [], granted: [], scopes: null, tokenId, via: "token",
});
const limited = (e: KnotError) => e.code === "RATE_LIMITED" && (e.detail.retryAfterSeconds ?? 0) >= 1;

describe("run quotas", () => {
  it("caps concurrent runs per user, and frees the slot on release", async () => {
    const q = createQuotas({ ...DEFAULT_QUOTAS, userConcurrentRuns: 2 });
    const a = await q.acquire(principal("u1"));
    await q.acquire(principal("u1"));
    await assert.rejects(q.acquire(principal("u1")), limited);
    await q.acquire(principal("u2"));
    a();
    a(); // releasing twice is harmless
    await q.acquire(principal("u1"));
  });

  it("caps runs per minute per user and per token, with retry-after from the oldest run", async () => {
    let now = 0;
    const q = createQuotas({ ...DEFAULT_QUOTAS, userRunsPerMinute: 3, tokenRunsPerMinute: 2 }, () => now);
    for (let i = 0; i < 2; i++) (await q.acquire(principal("u1", "t1")))();
    await assert.rejects(q.acquire(principal("u1", "t1")), (e: KnotError) => limited(e) && /token/.test(e.message));
    (await q.acquire(principal("u1", "t2")))();
    now = 30_000;
    await assert.rejects(q.acquire(principal("u1", "t3")), (e: KnotError) => limited(e) && e.detail.retryAfterSeconds === 30);
    now = 60_001;
    (await q.acquire(principal("u1", "t1")))();
  });

  it("keeps an exact sliding minute over thousands of runs (expired runs dropped as time moves on)", async () => {
    let now = 0;
    const q = createQuotas({ ...DEFAULT_QUOTAS, userRunsPerMinute: 1_000, tokenRunsPerMinute: 1e9 }, () => now);
    // 1,000 runs in the first 10 s fill the minute; the 1,001st is refused until the oldest expires.
    for (let i = 0; i < 1_000; i++, now += 10) (await q.acquire(principal("u1")))();
    await assert.rejects(q.acquire(principal("u1")), (e: KnotError) => limited(e) && e.detail.retryAfterSeconds === 50);
    // 3,000 more, one every 60 ms (1,000 per minute exactly): each is admitted as the one a minute older leaves.
    now = 60_000;
    for (let i = 0; i < 3_000; i++, now += 60) (await q.acquire(principal("u1")))();
    const last = now - 60; // the moment of the last run: the minute behind it holds 1,000 runs
    now = last;
    // Refused, and told to wait for the oldest run in the window (one minute older than `last` + 60 ms).
    await assert.rejects(q.acquire(principal("u1")), (e: KnotError) => limited(e) && e.detail.retryAfterSeconds === 1, "the window is full again, not emptied by the compaction");
    now = last + 59;
    await assert.rejects(q.acquire(principal("u1")), limited, "59 ms later the oldest run is still in the minute");
    now = last + 60;
    (await q.acquire(principal("u1")))(); // ...and at 60 ms it has left
    await assert.rejects(q.acquire(principal("u1")), limited, "which made room for exactly one");
  });

  it("forgets the run times of keys idle for a minute (one entry per token ever seen kept growing)", async () => {
    let now = 0;
    const q = createQuotas({ ...DEFAULT_QUOTAS }, () => now);
    for (let i = 0; i < 3_000; i++) (await q.acquire(principal(`u${i}`, `t${i}`)))();
    assert.ok(q.stats().rateKeys >= 5_000, "every key of the last minute is remembered");
    now = 120_000;
    // A thousand more admissions (new users) pass a sweep: the 6,000 keys idle for two minutes go.
    for (let i = 0; i < 1_000; i++) (await q.acquire(principal(`v${i}`)))();
    assert.ok(q.stats().rateKeys <= 1_000, `${q.stats().rateKeys} keys remembered after two idle minutes`);
  });

  it("retry-after counts from the oldest run still in the minute, not from one already expired", async () => {
    let now = 0;
    const q = createQuotas({ ...DEFAULT_QUOTAS, userRunsPerMinute: 1_000, tokenRunsPerMinute: 1e9 }, () => now);
    const burst = async (count: number) => {
      for (let i = 0; i < count; i++) (await q.acquire(principal("u1")))();
    };
    await burst(500);
    now = 30_000;
    await burst(500);
    now = 60_000; // the first burst has left the minute; the second is the oldest one in it
    await burst(500);
    await assert.rejects(q.acquire(principal("u1")), (e: KnotError) => limited(e) && e.detail.retryAfterSeconds === 30);
  });

  it("queues past the global cap and refuses past the bounded queue", async () => {
    const q = createQuotas({ ...DEFAULT_QUOTAS, maxConcurrentRuns: 1, maxQueuedRuns: 1 });
    const first = await q.acquire(principal("a"));
    let secondStarted = false;
    const second = q.acquire(principal("b")).then((release) => {
      secondStarted = true;
      return release;
    });
    await assert.rejects(q.acquire(principal("c")), limited);
    assert.deepEqual(q.stats(), { running: 1, queued: 1, refused: 1, rateKeys: 3 });
    assert.equal(secondStarted, false);
    first();
    (await second)();
    assert.equal(secondStarted, true);
    assert.equal(q.stats().running, 0);
  });

  it("a queued run that is cancelled leaves the queue", async () => {
    const q = createQuotas({ ...DEFAULT_QUOTAS, maxConcurrentRuns: 1 });
    const first = await q.acquire(principal("a"));
    const abort = new AbortController();
    const waiting = q.acquire(principal("b"), abort.signal);
    abort.abort();
    await assert.rejects(waiting, (e: KnotError) => e.code === "CANCELLED");
    assert.equal(q.stats().queued, 0);
    first();
    (await q.acquire(principal("b")))();
  });
});

describe("run quotas are fair across users (issue 10, root cause 9)", () => {
  it("a user's default concurrency is well below the sandbox's capacity (2 workers × 4)", () => {
    assert.ok(DEFAULT_QUOTAS.userConcurrentRuns <= 4 && DEFAULT_QUOTAS.tokenConcurrentRuns <= 4);
  });

  it("runs waiting for a global slot are admitted round-robin by user, not first come first served", async () => {
    const q = createQuotas({ ...DEFAULT_QUOTAS, userConcurrentRuns: 64, maxConcurrentRuns: 1 });
    const first = await q.acquire(principal("flood"));
    const order: string[] = [];
    // Each admitted run ends at once, handing its slot to the next in line.
    const wait = (id: string) => q.acquire(principal(id)).then((release) => (order.push(id), release()));
    const all = [...Array.from({ length: 5 }, () => wait("flood")), wait("bob")];
    assert.equal(q.stats().queued, 6);
    first();
    await Promise.all(all);
    assert.equal(order.indexOf("bob"), 1, `bob was admitted after ${order.indexOf("bob")} flood runs: ${order.join(",")}`);
    assert.deepEqual({ ...q.stats(), rateKeys: undefined }, { running: 0, queued: 0, refused: 0, rateKeys: undefined });
  });
});
