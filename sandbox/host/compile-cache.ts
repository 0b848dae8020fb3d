/**
 * Why: a sandbox worker starts by loading its own modules (type-stripped TypeScript, undici,
 * acorn) with no Node snapshot (isolated-vm needs `--no-node-snapshot`), ~0.4 s of CPU each time,
 * and workers are replaced on recycling and after every kill. Node's module compile cache
 * (`NODE_COMPILE_CACHE`) halves that. The cache holds V8 code that a worker loads without
 * question, so it lives only in a directory this process owns and nobody else may write: one it
 * creates with mode 0700 under the temp dir, or an existing one that is ours, not a symlink, and
 * not writable by group or others. Anything else and workers start without a cache (slower, never
 * unsafe).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The worker's compile cache directory, or undefined when no safe one can be had. */
export function workerCompileCacheDir(root: string = os.tmpdir()): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const owned = path.join(root, `knot-tools-${uid}`);
  const dir = path.join(owned, "worker-compile-cache");
  try {
    for (const step of [owned, dir]) {
      try {
        fs.mkdirSync(step, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      if (!isPrivateDir(step, uid)) return undefined;
    }
    return dir;
  } catch {
    return undefined;
  }
}

/** Ours, a real directory (lstat: a symlink is refused), and writable by nobody else. */
function isPrivateDir(dir: string, uid: number): boolean {
  const stats = fs.lstatSync(dir);
  return stats.isDirectory() && !stats.isSymbolicLink() && stats.uid === uid && (stats.mode & 0o022) === 0;
}
