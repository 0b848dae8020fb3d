/**
 * `audit.around` (src/audit/audit-around.ts), the one wrapper every audited call goes through (MCP
 * tool calls, plugin handlers over HTTP and the loopback, pages, user-tool runs): exactly one row
 * per call, committed before the caller gets the answer or the error, with the outcome the work
 * reports, the error's code, or the failure the work named. Real audit log on a real SQLite file.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { createAuditLog, type AuditLog } from "../../src/audit/audit-log.ts";
import { KnotError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/index.ts";
import type { Store } from "../../src/store/store.ts";
import { tempDir } from "../helpers/fixtures.ts";

describe("audit.around", () => {
  let store: Store;
  let audit: AuditLog;
  const rowOf = async (tool: string) => {
    const rows = await store.queryAudit({ tool });
    assert.equal(rows.length, 1, `one row for ${tool}`);
    return rows[0]!;
  };
  const meta = (tool: string, extra: Record<string, unknown> = {}) => ({ principal: null, surface: "api" as const, tool, args: { a: 1, secret: "s3cret" }, masked: ["secret"], requestId: "req-1", ...extra });

  before(async () => {
    store = await openStore({ path: path.join(tempDir(), "audit.db") });
    audit = await createAuditLog({ store, maskKey: "k", logger: silentLogger });
  });
  after(() => store.close());

  it("answers the work's value after its row is committed, with the outcome, the result's summary and masks", async () => {
    const value = await audit.around(meta("ok-call"), async () => {
      await new Promise((r) => setTimeout(r, 15));
      return { value: 42, outcome: "ok", result: { summary: "done" } };
    });
    assert.equal(value, 42);
    const row = await rowOf("ok-call");
    assert.deepEqual([row.outcome, row.summary, row.requestId, (row.args as Record<string, unknown>).a], ["ok", "done", "req-1", 1]);
    assert.match(String((row.args as Record<string, unknown>).secret), /^masked:/);
    assert.ok(row.durationMs >= 10, `the wrapper's clock: ${row.durationMs}`);
  });

  it("records a throw with the error's code (or INTERNAL) and rethrows the same error", async () => {
    const coded = new KnotError("PERMISSION_DENIED", "no");
    await assert.rejects(audit.around(meta("coded"), async () => { throw coded; }), (e) => e === coded);
    assert.equal((await rowOf("coded")).outcome, "PERMISSION_DENIED");
    await assert.rejects(audit.around(meta("plain"), async () => { throw new Error("boom"); }), /boom/);
    assert.equal((await rowOf("plain")).outcome, "INTERNAL");
  });

  it("records the failure the work named, and the arguments and masks as the work refined them", async () => {
    await assert.rejects(audit.around(meta("refined"), async (call) => {
      call.args = { b: 2, token: "t0k" };
      call.masked = ["token"];
      call.failure = "UNKNOWN_TOOL";
      throw new KnotError("INVALID_ARGUMENT", "x");
    }));
    const row = await rowOf("refined");
    assert.equal(row.outcome, "UNKNOWN_TOOL");
    const args = row.args as Record<string, unknown>;
    assert.deepEqual(Object.keys(args).sort(), ["b", "token"]);
    assert.match(String(args.token), /^masked:/);
  });

  it("passes the caller's signal to the work, and takes the work's own duration when it measured one", async () => {
    const abort = new AbortController();
    abort.abort();
    const seen = await audit.around(meta("signalled", { signal: abort.signal }), async (call) => ({ value: call.signal.aborted, outcome: "CANCELLED", durationMs: 1234 }));
    assert.equal(seen, true);
    const row = await rowOf("signalled");
    assert.deepEqual([row.outcome, row.durationMs], ["CANCELLED", 1234]);
    assert.equal(await audit.around(meta("unsignalled"), async (call) => ({ value: call.signal.aborted, outcome: "ok" })), false);
  });
});
