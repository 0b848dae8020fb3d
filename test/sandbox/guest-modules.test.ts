// The knot:* wrapper modules of a context (sandbox/worker/guest-code.ts): knot:tool and the runner
// are made with every context, the others ahead only when earlier runs linked them, else while a
// tool's linking asks. In this process (isolated-vm loaded here, as the worker does).
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { buildSync } from "esbuild";
import { guestBundle, refuseNamespaceObjects } from "../../sandbox/host/guest-bundle.ts";
import { loadGuestCode, RUN_TOOL_MODULE } from "../../sandbox/worker/guest-code.ts";
import { prepareContext } from "../../sandbox/worker/fresh-context.ts";
import { createIsolateHomes } from "../../sandbox/worker/isolate-homes.ts";
import { createIsolate } from "../../sandbox/worker/ivm.ts";

const code = loadGuestCode(guestBundle());
/** A parked isolate prepares its next context a turn later. */
const parked = () => new Promise((resolve) => setTimeout(resolve, 20));
const isolate = createIsolate({ memoryMb: 64, onCatastrophicError: () => undefined });
after(() => isolate.dispose());

/** safeError throws a plain { code, message }. */
const isMissing = (specifier: string) => (error: unknown): boolean => {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === "INTERNAL" && message === `guest module ${specifier} is missing`;
};
const handoffPresent = (fresh: ReturnType<typeof prepareContext>): boolean => fresh.context.evalSync('"__knot_guest" in globalThis') === true;

test("a context makes knot:tool and the runner; another knot:* module is made when linking asks, never after seal", () => {
  const fresh = prepareContext(isolate, code);
  try {
    assert.equal(handoffPresent(fresh), true, "the hand-off stays while linking");
    fresh.guest.module("knot:tool");
    fresh.guest.module(RUN_TOOL_MODULE);
    const plugin = fresh.guest.module("knot:plugin");
    assert.equal(fresh.guest.module("knot:plugin"), plugin, "made once per context");
    assert.deepEqual([...fresh.guest.linked].sort(), ["knot-internal:run-tool", "knot:plugin", "knot:tool"]);
    fresh.guest.seal();
    assert.equal(handoffPresent(fresh), false);
    assert.throws(() => fresh.guest.module("knot:identity"), isMissing("knot:identity"));
    assert.equal(fresh.guest.module("knot:plugin"), plugin);
  } finally {
    fresh.release();
  }
});

test("a module the caller expects is made with the context, before any linking", () => {
  const fresh = prepareContext(isolate, code, new Set(["knot:identity"]));
  try {
    fresh.guest.seal(); // nothing may be made now: only what was made ahead answers
    fresh.guest.module("knot:identity");
    fresh.guest.module("knot:tool");
    assert.throws(() => fresh.guest.module("knot:plugin"), isMissing("knot:plugin"));
  } finally {
    fresh.release();
  }
});

test("a user's next contexts are made with the modules their isolate's runs linked; a never-used isolate with those any run linked", async () => {
  const homes = createIsolateHomes(code, { reuse: "user", maxRuns: 10, idleMs: 5_000, maxIdle: 4, shedAboveMb: 1_000_000 }, () => undefined);
  try {
    const first = await homes.take("alice", 64);
    first.fresh.guest.module("knot:identity");
    first.release(true);
    await parked();
    // A run that links nothing more: the isolate still expects knot:identity afterwards.
    for (let run = 0; run < 2; run++) {
      const next = await homes.take("alice", 64);
      assert.equal(next.reused, true);
      next.fresh.guest.seal();
      next.fresh.guest.module("knot:identity");
      assert.throws(() => next.fresh.guest.module("knot:plugin"), isMissing("knot:plugin"));
      next.release(true);
      await parked();
    }
    homes.warm(32); // a never-used isolate: what any run on this worker linked
    const other = await homes.take("bob", 32);
    assert.equal(other.reused, false);
    other.fresh.guest.seal();
    other.fresh.guest.module("knot:identity");
    other.release(false);
  } finally {
    homes.close();
  }
});

test("a bundle whose export arrays do not match their names is refused when the worker loads it, not served with undefined exports", () => {
  const handOff = (modules: string, names: string) =>
    `Object.defineProperty(globalThis, "__knot_guest", { value: { modules: ${modules}, exportNames: ${JSON.stringify(names)} }, configurable: true });`;
  assert.throws(() => loadGuestCode(handOff(`{ "knot:tool": [] }`, '{"knot:tool":["getString"]}')), /the exports of \["knot:tool"\] do not match their names/);
  assert.throws(() => loadGuestCode(handOff(`{ "knot:tool": [undefined] }`, '{"knot:tool":["getString"]}')), /do not match/);
  assert.doesNotThrow(() => loadGuestCode(handOff(`{ "knot:tool": [() => 1] }`, '{"knot:tool":["getString"]}')));
});

test("the guest bundle hands each module's exports over as an array and builds no namespace object", () => {
  const bundle = guestBundle();
  assert.equal(bundle.includes("__export("), false, "no module namespace object is built per context");
  assert.match(bundle, /handOff\(\{"knot:tool":\[/, "each module's exports are handed over as an array");
});

test("a bundle that would build a namespace object in every context is refused", () => {
  const guestDir = new URL("../../sandbox/guest/", import.meta.url).pathname;
  // What a guest module using `import * as I` as a value compiles to.
  const namespaced = buildSync({
    stdin: { contents: 'import * as I from "./intrinsics.ts"; globalThis.table = I;', resolveDir: guestDir, loader: "js" },
    bundle: true, format: "iife", platform: "neutral", write: false, logLevel: "silent",
  }).outputFiles[0]!.text;
  assert.throws(() => refuseNamespaceObjects(namespaced), /used as a namespace object/);
  assert.equal(refuseNamespaceObjects(guestBundle()), guestBundle());
});

test("shedding lets go of at most the asked number of idle isolates, the oldest first; the others stay warm", async () => {
  const homes = createIsolateHomes(code, { reuse: "user", maxRuns: 10, idleMs: 5_000, maxIdle: 8, shedAboveMb: 1_000_000 }, () => undefined);
  try {
    for (const user of ["ann", "ben", "cat"]) {
      const lease = await homes.take(user, 64);
      lease.release(true);
      await parked();
    }
    assert.equal(homes.idleCount, 3);
    assert.equal(homes.shed(2), 2, "two of the three went");
    assert.equal(homes.idleCount, 1);
    const reused = async (user: string) => {
      const lease = await homes.take(user, 64);
      lease.release(false);
      return lease.reused;
    };
    assert.equal(await reused("cat"), true, "the newest is still warm");
    assert.equal(await reused("ann"), false, "the oldest went");
    assert.equal(homes.shed(4), 0, "nothing idle is left to shed");
  } finally {
    homes.close();
  }
});
