/**
 * Why: a sandbox worker starts by loading its own modules (type-stripped TypeScript, undici,
 * acorn) with no Node snapshot (isolated-vm needs `--no-node-snapshot`), ~0.4 s of CPU each time,
 * and workers are replaced on recycling and after every kill. Node's module compile cache
 * (`NODE_COMPILE_CACHE`) halves that. The cache holds V8 code that a worker loads without
 * question, so it lives only in a directory this process owns and nobody else may write:
 * `<tmp>/knot-tools-<uid>/worker-compile-cache`, each level created with mode 0700, or existing
 * ones that are ours, not symlinks, and not writable by group or others. Anything else and workers
 * start without a cache (slower, never unsafe).
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
  // Each level in turn: the inner one is only trusted inside an outer one that is ours.
  return ensurePrivateDir(owned, uid) && ensurePrivateDir(dir, uid) ? dir : undefined;
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
