/**
 * Why: two files a sandbox worker uses live outside its memory, so they live only in a directory
 * this process owns and nobody else may write: `<tmp>/knot-tools-<uid>`, created with mode 0700, or
 * an existing one that is ours, not a symlink, and not writable by group or others. Anything else
 * and the worker goes without them (slower, never unsafe).
 *   - The module compile cache (`NODE_COMPILE_CACHE`): a worker starts by loading its own modules
 *     (type-stripped TypeScript, undici, acorn) with no Node snapshot (isolated-vm needs
 *     `--no-node-snapshot`), ~0.4 s of CPU, and workers are replaced on recycling and after every
 *     kill; the cache halves that. It holds V8 code a worker loads without question.
 *   - The slice record (see sandbox/worker/sync-slice.ts): which run has the worker's thread, read
 *     by the host when that thread stops answering.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** `<root>/knot-tools-<uid>` when it is (or can be made) private to us; else undefined. */
export function privateWorkerDir(root: string = os.tmpdir()): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = path.join(root, `knot-tools-${uid}`);
  return ensurePrivateDir(dir, uid) ? dir : undefined;
}

/** The worker's compile cache directory, or undefined when no safe one can be had. */
export function workerCompileCacheDir(root: string = os.tmpdir()): string | undefined {
  const owned = privateWorkerDir(root);
  const uid = process.getuid?.();
  if (owned === undefined || uid === undefined) return undefined;
  const dir = path.join(owned, "worker-compile-cache");
  return ensurePrivateDir(dir, uid) ? dir : undefined;
}

/** A new, empty slice record file (mode 0600) for one worker, or undefined. */
export function createSliceRecord(root: string = os.tmpdir()): string | undefined {
  const owned = privateWorkerDir(root);
  if (owned === undefined) return undefined;
  const file = path.join(owned, `slice-${randomUUID()}`);
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600));
    return file;
  } catch {
    return undefined;
  }
}

function ensurePrivateDir(dir: string, uid: number): boolean {
  try {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    // lstat: a symlink is refused, wherever it points.
    const stats = fs.lstatSync(dir);
    return stats.isDirectory() && !stats.isSymbolicLink() && stats.uid === uid && (stats.mode & 0o022) === 0;
  } catch {
    return false;
  }
}
