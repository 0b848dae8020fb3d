/**
 * Commands that fail must say so and change nothing they cannot finish: `serve` on a port in use
 * exits non-zero without creating the first admin (whose token it would never have printed, and
 * every later start would skip), and `plugins check` of a folder that does not exist fails.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { test } from "node:test";
import { createSqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { cli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/fixtures.ts";

test("serve on a port in use fails before it creates the first admin and its token", async () => {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
  const port = (busy.address() as net.AddressInfo).port;
  const dir = tempDir();
  const db = path.join(dir, "knot.db");
  try {
    const ran = cli(["serve", "--host", "127.0.0.1", "--port", String(port), "--db", db], { cwd: dir });
    assert.notEqual(ran.code, 0, ran.stdout);
    assert.match(ran.stderr, /EADDRINUSE|address already in use/i);
    assert.doesNotMatch(ran.stdout, /API token/);
  } finally {
    busy.close();
  }
  const store = await createSqliteStore({ path: db });
  try {
    assert.deepEqual(await store.listUsers(), [], "the admin was created but its token never shown");
  } finally {
    await store.close();
  }
});

test("plugins check of a folder that does not exist fails", () => {
  const dir = tempDir();
  const ran = cli(["plugins", "check", path.join(dir, "no-such-folder")], { cwd: dir });
  assert.equal(ran.code, 1, ran.stdout + ran.stderr);
  assert.match(ran.stderr, /no-such-folder/);
});

test("commands that read or change an existing database refuse a database file that is not there, and create none", () => {
  const dir = tempDir();
  const missing = path.join(dir, "typo.db");
  const tool = path.join(dir, "t.js");
  fs.writeFileSync(tool, `import { returnString } from "knot:tool";\nexport default function () { returnString("x"); }\n`);
  for (const args of [["audit", "verify"], ["users", "list"], ["tokens", "list"], ["tokens", "create", "alice"], ["grant", "alice", "knot.mcp"], ["revoke", "alice", "knot.mcp"], ["tools", "add", tool, "--user", "alice"], ["run", tool, "--user", "alice"], ["mcp", "--user", "alice"]]) {
    const ran = cli([...args, "--db", missing], { cwd: dir, input: "" });
    assert.equal(ran.code, 1, `${args.join(" ")}: ${ran.stdout}${ran.stderr}`);
    assert.match(ran.stderr, /no database at .*typo\.db/, args.join(" "));
    assert.equal(ran.stderr.trim().split("\n").length, 1, ran.stderr);
    assert.equal(fs.existsSync(missing), false, `${args.join(" ")} created the file`);
  }
  // `users add` may start a database (the first user before the first serve), as `serve` does.
  assert.equal(cli(["users", "add", "alice", "--db", missing], { cwd: dir }).code, 0);
  assert.equal(cli(["audit", "verify", "--db", missing], { cwd: dir }).code, 0);
});

test("a file that is not a knot-tools database is refused, named, and left as it was", async () => {
  const dir = tempDir();
  const other = path.join(dir, "invoices.db");
  const { DatabaseSync } = await import("node:sqlite");
  const foreign = new DatabaseSync(other);
  foreign.exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)");
  foreign.close();
  for (const args of [["audit", "verify"], ["users", "list"], ["users", "add", "alice"]]) {
    const ran = cli([...args, "--db", other], { cwd: dir });
    assert.equal(ran.code, 1, `${args.join(" ")}: ${ran.stdout}${ran.stderr}`);
    assert.match(ran.stderr, /invoices\.db is not a knot-tools database/, args.join(" "));
  }
  const after = new DatabaseSync(other, { readOnly: true });
  try {
    const tables = after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((row) => row.name);
    assert.deepEqual(tables, ["invoices"], "no knot table was added to it");
  } finally {
    after.close();
  }
});
