// Several server instances on one database: each sees the others' writes at once, and the steps
// that read before they write (audit chain, versioned saves, settings, migrations) stay correct
// when instances race. On PostgreSQL the races are real (separate pooled connections).
import assert from "node:assert/strict";
import { test } from "node:test";
import { verifyAuditChain } from "../../src/store/audit-hash.ts";
import { openStore } from "../../src/store/index.ts";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.ts";
import type { AuditEntryInput } from "../../src/store/store.ts";
import { forEachStore, toolInput } from "./helpers.ts";

const entry = (tool: string, at = "2026-01-01T00:00:00.000Z"): AuditEntryInput => ({
  at, userId: "u1", tokenId: null, client: null, surface: "mcp", tool, args: { tool }, outcome: "ok", durationMs: 1, summary: null, requestId: null,
});

forEachStore((backend) => {
  test("a tool saved through one instance is listed and updatable through the other at once", async () => {
    const { store: one, another } = await backend.open();
    const two = await another();
    const ada = await one.createUser({ name: "ada", isAdmin: false });
    const bob = await two.createUser({ name: "bob", isAdmin: false });

    const tool = await one.createUserTool(ada.id, toolInput({ sharing: "everyone" }));
    assert.deepEqual((await two.listUserToolsVisibleTo(bob.id, [])).map((t) => t.id), [tool.id]);
    assert.deepEqual(await two.getUserTool(tool.id), tool);

    const updated = await two.updateUserTool(tool.id, ada.id, toolInput({ sharing: "everyone", code: "v2" }), 1);
    assert.equal((await one.getUserTool(tool.id))?.code, "v2");
    assert.deepEqual((await one.listUserToolVersions(tool.id)).map((version) => version.version), [2, 1]);
    assert.equal(await one.deleteUserTool(updated.id), true);
    assert.deepEqual(await two.listUserToolsVisibleTo(bob.id, []), []);
  });

  test("a grant, a group membership and a revocation made through one instance apply on the other at once", async () => {
    const { store: one, another } = await backend.open();
    const two = await another();
    const ada = await one.createUser({ name: "ada", isAdmin: false });

    await one.grant({ subject: { kind: "user", userId: ada.id }, permission: "plugin.metrics.view" });
    assert.deepEqual(await two.permissionsOf(ada.id), ["plugin.metrics.view"]);
    await two.addMembership(ada.id, "ops");
    await two.grant({ subject: { kind: "group", group: "ops" }, permission: "plugin.metrics.export" });
    assert.deepEqual(await one.permissionsOf(ada.id), ["plugin.metrics.export", "plugin.metrics.view"]);

    assert.equal(await two.revoke({ subject: { kind: "user", userId: ada.id }, permission: "plugin.metrics.view" }), true);
    await one.removeMembership(ada.id, "ops");
    assert.deepEqual(await one.permissionsOf(ada.id), []);
    assert.deepEqual(await two.permissionsOf(ada.id), []);
  });

  test("concurrent appends from two instances form one valid chain", async () => {
    const { store: one, another } = await backend.open();
    const two = await another();
    const appended = await Promise.all(
      Array.from({ length: 120 }, (_, index) => (index % 2 === 0 ? one : two).appendAudit(entry(`t${index}`))),
    );
    assert.deepEqual(
      appended.map((row) => row.seq).sort((a, b) => a - b),
      Array.from({ length: 120 }, (_, index) => index + 1),
    );
    assert.deepEqual(await verifyAuditChain(one.iterateAudit()), { ok: true, rows: 120 });
    assert.deepEqual(await verifyAuditChain(two.iterateAudit()), { ok: true, rows: 120 });
    assert.equal(new Set(appended.map((row) => row.tool)).size, 120);
  });

  // PostgreSQL only: a SQLite write transaction excludes every other writer, whatever isolation is asked for.
  if (backend.name === "postgres") test("concurrent appends keep one valid chain when the database defaults to a stricter isolation level", async () => {
    const { sql, another } = await backend.open();
    // Managed databases sometimes default to REPEATABLE READ; the lock-then-read steps need READ COMMITTED.
    await sql("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L', current_database(), 'repeatable read'); END $$");
    const [one, two] = [await another(), await another()];
    await Promise.all(Array.from({ length: 80 }, (_, index) => (index % 2 === 0 ? one : two).appendAudit(entry(`t${index}`))));
    assert.deepEqual(await verifyAuditChain(one.iterateAudit()), { ok: true, rows: 80 });
    assert.deepEqual((await one.queryAudit({ limit: 1000 })).map((row) => row.tool).filter((tool) => tool === "[unrecordable]"), []);
    const ada = await one.createUser({ name: "ada", isAdmin: false });
    const tool = await one.createUserTool(ada.id, toolInput());
    const saves = await Promise.allSettled([one, two].map((store) => store.updateUserTool(tool.id, ada.id, toolInput({ code: "v2" }), 1)));
    assert.deepEqual(saves.map((save) => (save.status === "fulfilled" ? "ok" : (save.reason as { code?: string }).code)).sort(), ["CONFLICT", "ok"]);
  });

  test("pruning through one instance while the other appends leaves one valid chain", async () => {
    const { store: one, another } = await backend.open();
    const two = await another();
    const day = (index: number) => `2026-01-${String(1 + (index % 28)).padStart(2, "0")}T00:00:00.000Z`;
    for (let index = 0; index < 20; index += 1) await one.appendAudit(entry(`old${index}`, "2025-12-01T00:00:00.000Z"));
    const appends = Promise.all(Array.from({ length: 60 }, (_, index) => two.appendAudit(entry(`new${index}`, day(index)))));
    const prunes = Promise.all([one.pruneAudit("2026-01-01T00:00:00.000Z"), one.pruneAudit("2026-01-01T00:00:00.000Z")]);
    const [, pruned] = await Promise.all([appends, prunes]);
    assert.equal(pruned[0] + pruned[1], 20); // the old rows, once; nothing after the first new row
    const verdict = await verifyAuditChain(two.iterateAudit());
    assert.deepEqual(verdict, { ok: true, rows: 60 });
    const next = await one.appendAudit(entry("after"));
    assert.equal(next.seq, 81);
  });

  test("two instances saving the same version at once: exactly one wins, the other gets CONFLICT", async () => {
    const { store: one, another } = await backend.open();
    const two = await another();
    const ada = await one.createUser({ name: "ada", isAdmin: false });
    const tool = await one.createUserTool(ada.id, toolInput());
    const results = await Promise.allSettled([
      one.updateUserTool(tool.id, ada.id, toolInput({ code: "from one" }), 1),
      two.updateUserTool(tool.id, ada.id, toolInput({ code: "from two" }), 1),
    ]);
    const won = results.filter((result) => result.status === "fulfilled");
    const lost = results.filter((result) => result.status === "rejected");
    assert.equal(won.length, 1);
    assert.equal((lost[0]?.reason as { code?: string }).code, "CONFLICT");
    const current = await two.getUserTool(tool.id);
    assert.equal(current?.version, 2);
    assert.equal(current?.code, won[0]?.value.code);
    assert.equal((await one.listUserToolVersions(tool.id)).length, 2);
  });

  test("creating the same tool name through two instances at once: one CONFLICT", async () => {
    const { store: one, another } = await backend.open();
    const two = await another();
    const ada = await one.createUser({ name: "ada", isAdmin: false });
    const results = await Promise.allSettled([one.createUserTool(ada.id, toolInput()), two.createUserTool(ada.id, toolInput())]);
    assert.deepEqual(results.map((result) => result.status).sort(), ["fulfilled", "rejected"]);
    const failure = results.find((result) => result.status === "rejected");
    assert.equal((failure?.reason as { code?: string }).code, "CONFLICT");
    assert.equal((await two.listUserToolsVisibleTo(ada.id, [])).length, 1);
  });

  test("a setting created by two instances at once: the first writer wins on both", async () => {
    const { store: one, another } = await backend.open();
    const two = await another();
    const [a, b] = await Promise.all([one.getOrCreateSetting("mask-key", () => "from-one"), two.getOrCreateSetting("mask-key", () => "from-two")]);
    assert.equal(a, b);
    assert.ok(a === "from-one" || a === "from-two");
    let called = false;
    assert.equal(await two.getOrCreateSetting("mask-key", () => ((called = true), "later")), a);
    assert.equal(called, false);
  });

  test("instances starting at once on an empty database migrate it once, and each works", async () => {
    const path = await backend.newLocation();
    const stores = await Promise.all([openStore({ path }), openStore({ path }), openStore({ path })]);
    try {
      const ada = await stores[0]!.createUser({ name: "ada", isAdmin: false });
      assert.deepEqual(await stores[1]!.getUser(ada.id), ada);
      await assert.rejects(stores[2]!.createUser({ name: "ada", isAdmin: true }), (error: { code?: string }) => error.code === "CONFLICT");
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const recorded = await backend.sqlOn(path)("SELECT version FROM schema_migrations ORDER BY version");
    assert.deepEqual(recorded.map((row) => Number(row.version)), MIGRATIONS.map((migration) => migration.version));
  });
});
