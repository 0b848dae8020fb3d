import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { workerCompileCacheDir } from "../../sandbox/host/compile-cache.ts";
import { sandboxWorkers } from "../../bench/proc.ts";
import { assertOk, createTestPool, runTool } from "./harness.ts";

const uid = process.getuid?.() ?? -1;
const made: string[] = [];
const tempRoot = (prefix = "knot-cc-"): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(root);
  return root;
};
after(() => {
  for (const root of made) fs.rmSync(root, { recursive: true, force: true });
});

test("the worker compile cache is a directory of ours with mode 0700, the same one every time", () => {
  const root = tempRoot();
  const dir = workerCompileCacheDir(root);
  assert.equal(dir, path.join(root, `knot-tools-${uid}`, "worker-compile-cache"));
  for (const made of [path.dirname(dir), dir]) {
    const stats = fs.lstatSync(made);
    assert.equal(stats.mode & 0o777, 0o700, made);
    assert.equal(stats.uid, uid);
  }
  assert.equal(workerCompileCacheDir(root), dir);
});

test("attack: a cache directory planted as a symlink is not used (workers start without a cache)", () => {
  const root = tempRoot();
  const elsewhere = tempRoot("knot-cc-planted-");
  fs.symlinkSync(elsewhere, path.join(root, `knot-tools-${uid}`));
  assert.equal(workerCompileCacheDir(root), undefined);
  const inner = tempRoot();
  fs.mkdirSync(path.join(inner, `knot-tools-${uid}`), { mode: 0o700 });
  fs.symlinkSync(elsewhere, path.join(inner, `knot-tools-${uid}`, "worker-compile-cache"));
  assert.equal(workerCompileCacheDir(inner), undefined);
});

test("attack: a cache directory others may write to is not used", () => {
  const root = tempRoot();
  const owned = path.join(root, `knot-tools-${uid}`);
  fs.mkdirSync(owned, { mode: 0o700 });
  fs.chmodSync(owned, 0o777);
  assert.equal(workerCompileCacheDir(root), undefined);
  fs.chmodSync(owned, 0o700);
  fs.mkdirSync(path.join(owned, "worker-compile-cache"));
  fs.chmodSync(path.join(owned, "worker-compile-cache"), 0o775);
  assert.equal(workerCompileCacheDir(root), undefined);
});

test("attack: a cache directory another user made is not used", { skip: uid !== 0 ? "needs root to make a directory another user owns" : false }, () => {
  const root = tempRoot();
  const owned = path.join(root, `knot-tools-${uid}`);
  fs.mkdirSync(owned, { mode: 0o700 });
  fs.chownSync(owned, 65_534, 65_534);
  assert.equal(workerCompileCacheDir(root), undefined);
});

test("a file where the cache directory should be means no cache, not a crash", () => {
  const root = tempRoot();
  fs.writeFileSync(path.join(root, `knot-tools-${uid}`), "not a directory");
  assert.equal(workerCompileCacheDir(root), undefined);
});

test("sandbox workers fill the compile cache, and a worker started from it still runs tools", async () => {
  const dir = workerCompileCacheDir();
  assert.ok(dir !== undefined, "the temp dir gives this process a private cache directory");
  const cached = (): string[] => fs.readdirSync(dir).flatMap((version) => fs.readdirSync(path.join(dir, version)).map((file) => path.join(dir, version, file)));
  // Emptied first (a worker starting meanwhile only compiles without it), so what is found was written now.
  for (const file of cached()) fs.rmSync(file, { force: true });
  for (let round = 0; round < 2; round++) {
    const pool = createTestPool({ workers: 1, runsPerWorker: 1 });
    try {
      assert.deepEqual(assertOk(await runTool(pool, "export default () => 'ran'")), { kind: "text", text: "ran" });
    } finally {
      await pool.close();
    }
  }
  assert.ok(cached().length > 0, "the worker wrote its compiled modules to the cache");
});

test("attack: the cache directory is checked at every worker start: one made writable by others meanwhile is not given to the next worker", async () => {
  const root = tempRoot();
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root; // os.tmpdir() reads it at each call
  const envOf = (pid: number): string[] => fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  const pool = createTestPool({ workers: 1, runsPerWorker: 1, recycleAfterRuns: 1 });
  try {
    let [first] = sandboxWorkers();
    for (let tries = 0; first === undefined && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      [first] = sandboxWorkers();
    }
    assert.ok(first !== undefined, "the pool started its worker");
    assert.ok(envOf(first).includes(`NODE_COMPILE_CACHE=${path.join(root, `knot-tools-${uid}`, "worker-compile-cache")}`));
    fs.chmodSync(path.join(root, `knot-tools-${uid}`), 0o777);
    // The first run retires the first worker (recycleAfterRuns 1) and starts its replacement now.
    assertOk(await runTool(pool, "export default () => 1"));
    assertOk(await runTool(pool, "export default () => 2"));
    const next = sandboxWorkers().find((pid) => pid !== first);
    assert.ok(next !== undefined, "a replacement worker ran the second run");
    assert.equal(envOf(next).some((entry) => entry.startsWith("NODE_COMPILE_CACHE=")), false);
  } finally {
    await pool.close();
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
});
