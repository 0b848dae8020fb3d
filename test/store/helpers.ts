import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { Store, UserToolInput } from "../../src/store/store.ts";

/** A fresh temp folder, removed when the test file ends. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "knot-store-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A clock that moves one second per reading, from a fixed start. */
export function steppingClock(start = Date.UTC(2026, 0, 1)): () => Date {
  let tick = 0;
  return () => new Date(start + 1000 * tick++);
}

/** A store on a new file in a temp folder, closed when the test file ends. */
export async function openTempStore(name = "knot.db"): Promise<{ store: Store; path: string }> {
  const path = join(tempDir(), name);
  const store = await createSqliteStore({ path, now: steppingClock() });
  after(() => store.close());
  return { store, path };
}

export function toolInput(overrides: Partial<UserToolInput> = {}): UserToolInput {
  return {
    name: "hello",
    kind: "tool",
    description: "Says hello.",
    language: "js",
    parameters: [{ name: "who", type: "string", required: true }],
    code: "export default (request) => `hello ${request.params.who}`;",
    sharing: "private",
    active: true,
    ...overrides,
  };
}
