/**
 * Attack: keep a web session alive past the revocation of the token that opened it, by signing in
 * while the revocation commits. Revoking a token revokes the sessions derived from it that exist
 * when it runs; a sign-in that has passed its checks but inserts its session just after would get
 * a session nothing revoked (valid for up to 12 h with the token's scopes). The revocation here is
 * another process's (the CLI's), holding the database's write lock while the sign-in runs.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { request, startApp, type TestApp } from "../helpers/fixtures.ts";

let t: TestApp;
before(async () => {
  t = await startApp();
});
after(() => t.close());

/** Another process: revokes `tokenId` (and what derives from it) in a write transaction it commits after `holdMs`. */
function revokeElsewhere(database: string, tokenId: string, holdMs: number): { locked: Promise<void>; done: Promise<number | null> } {
  const script = `
    const { DatabaseSync } = require("node:sqlite");
    const db = new DatabaseSync(process.argv[1]);
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("BEGIN IMMEDIATE");
    db.prepare("UPDATE tokens SET revoked_at = ? WHERE (id = ? OR parent_id = ?) AND revoked_at IS NULL").run(new Date().toISOString(), process.argv[2], process.argv[2]);
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, Number(process.argv[3]));`;
  const child = spawn(process.execPath, ["-e", script, database, tokenId, String(holdMs)], { stdio: ["ignore", "pipe", "inherit"] });
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`the revoking process exited (${code}) before taking the lock`)));
  });
  const done = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { locked, done };
}

test("a sign-in racing the revocation of its token gets no session that outlives it", async () => {
  const { user, token } = await t.userWithToken("racer");
  // Used once first, so the sign-in below writes nothing before its session (its last use is recorded).
  assert.equal((await request(`${t.url}/api/me`, token)).status, 200);
  const [parent] = await t.app.store.listTokens(user.id);
  assert.ok(parent);
  const revocation = revokeElsewhere(path.join(t.dir, "knot.db"), parent.id, 400);
  await revocation.locked;
  // The revocation has not committed yet: the token still authenticates, then the sign-in waits for the lock.
  const res = await fetch(`${t.url}/api/session`, { method: "POST", headers: { "content-type": "application/json", "x-knot-csrf": "1" }, body: JSON.stringify({ token }) });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  await res.body?.cancel();
  assert.equal(await revocation.done, 0);
  const live = (await t.app.store.listTokens(user.id)).filter((row) => row.parentId === parent.id && row.revokedAt === null);
  assert.deepEqual(live.map((row) => row.id), [], "a session derived from the revoked token is still active");
  if (cookie !== "") assert.equal((await request(`${t.url}/api/me`, null, { headers: { cookie } })).status, 401, "the session outlived its token");
  assert.equal(res.status, 401, "the sign-in should be refused: its token was revoked meanwhile");
});
